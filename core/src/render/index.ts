export { type PlanGraphInput, renderPlanGraph, type StatusColor } from "./plan-graph.js";
export { describeAttempts, describeFailure, describeRetry, type TaskAttempts } from "./task-attempts.js";
export { terminalText } from "./terminal-text.js";
