export * from "./agents/index.js";
export * from "./cli/index.js";
export { checkPlan, type PlanCheck } from "./client/plan-check.js";
export { REGISTER_TIMEOUT_MS, registerWorker } from "./client/register.js";
export {
  type AttemptReport,
  type ClaimOptions,
  createTaskClient,
  dependencyWorkOf,
  type Fetch,
  type HeartbeatTask,
  type ReleasePause,
  type ReleaseSpend,
  type TaskClient,
} from "./client/task-client.js";
export * from "./generate/index.js";
// The runner exports its own previousFailureOf (the prompt's reading of the claim); both read the same.
export {
  createTaskAttempt,
  decide,
  mayReuse,
  type ReportedFailure,
  type TaskAttemptOptions,
  type Verdict,
} from "./pipeline/index.js";
export * from "./runner/index.js";
export * from "./triz/index.js";
export * from "./verify/index.js";
export { type Advertised, type Capabilities, createCapabilities } from "./worker/capabilities.js";
export { startHeartbeat } from "./worker/heartbeat.js";
export {
  createTaskBudget,
  runWorkerLoop,
  type TaskBudget,
  type WorkerLoopOptions,
} from "./worker/loop.js";
export { createPauseGate, type PauseGate, type PauseGateOptions } from "./worker/pause.js";
export { type Backoff, DEFAULT_BACKOFF, sleep, withRetry } from "./worker/retry.js";
export { createTrizHook, describeTriz, type TrizHookOptions } from "./worker/triz-hook.js";
export type {
  AfterFail,
  AgentAttempt,
  ProgressEvent,
  RunAgent,
  RunAttempt,
  WorkerStats,
} from "./worker/types.js";
export * from "./workspace/index.js";
