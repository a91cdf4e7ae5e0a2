export type { TaskAttemptOptions } from "./options.js";
export { previousFailureOf } from "./previous-failure.js";
export { createTaskAttempt } from "./task-attempt.js";
export type { ReportedFailure } from "./verdict.js";
