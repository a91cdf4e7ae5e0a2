import { formatUsd, type MicroUsd, type TaskRecord } from "@whilly/core";
import type { Logger } from "../ports/index.js";

/** The task transitions the control plane logs, one line each. */
export type TaskLogEvent = "task.claimed" | "task.completed" | "task.failed" | "task.released";

/**
 * Logs one task transition as an `info` line: `plan_id`, `task_id`, `worker_id`, `version` and
 * `status` after it, `attempts`, plus `cost_usd` (decimal string) when the report carried one and
 * `reason` for a failure or release. Never the task's text or anything from the agent's output.
 * @param workerId the worker that asked for it (the task's holder is gone after a finish).
 */
export function logTaskTransition(
  log: Logger | undefined,
  event: TaskLogEvent,
  task: TaskRecord,
  workerId: string,
  extra: { costMicroUsd?: MicroUsd | undefined; reason?: string | undefined } = {},
): void {
  if (log === undefined) return;
  log("info", event, {
    plan_id: task.planId,
    task_id: task.id,
    worker_id: workerId,
    version: task.version,
    status: task.status,
    attempts: task.attempts,
    ...(extra.costMicroUsd === undefined ? {} : { cost_usd: formatUsd(extra.costMicroUsd) }),
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
  });
}
