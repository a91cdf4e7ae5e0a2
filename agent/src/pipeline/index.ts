export type { TaskAttemptOptions } from "./options.js";
export { mayReuse } from "./previous-failure.js";
export { createTaskAttempt } from "./task-attempt.js";
export { decide, type ReportedFailure, type Verdict } from "./verdict.js";
