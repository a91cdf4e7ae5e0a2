/**
 * Audit event names, kept from whilly 4.x because dashboards and scripts match on them.
 * Transition events are upper case and are written in the transition's own transaction.
 */
export const EVENT_TYPES = {
  claim: "CLAIM",
  start: "START",
  complete: "COMPLETE",
  fail: "FAIL",
  release: "RELEASE",
  reset: "RESET",
  taskCreated: "task.created",
  taskSkipped: "task.skipped",
  taskUpdated: "task.updated",
  planCreated: "plan.created",
  planApplied: "plan.applied",
  planBudgetExceeded: "plan.budget_exceeded",
  /**
   * Not in whilly 4.x, which had no way to change a budget: `whilly plan budget` changed it.
   * `{plan_id, budget_usd_before, budget_usd}`, decimal strings or `null` for unlimited.
   */
  planBudgetChanged: "plan.budget_changed",
  /**
   * Not a transition: the offline sweep found a worker silent and took its tasks back. One per plan it
   * held tasks in, `{workers, released}` (the workers the sweep marked offline, the task ids it took back),
   * written through the event buffer.
   */
  workerOffline: "worker.offline",
  workerHeartbeat: "worker.heartbeat",
  /**
   * A worker stopped claiming because its agent hit a provider's usage or rate limit:
   * `{worker_id, reason, until, message}` (`until` ISO 8601, UTC). Written with the `rate_limited`
   * release of the task it was running. An operator's pause (`whilly worker pause`) writes it too,
   * with `reason: "admin"`, `worker_id: null` (every worker, also those that register later) and
   * `until: null` (until resumed), once in each plan that has unfinished tasks (a plan-less log has
   * no place for it; `GET /api/v1/workers/pause` says the state).
   */
  workerPaused: "worker.paused",
  /**
   * An operator resumed paused workers (`whilly worker resume`): `{worker_id, reason}`, `worker_id`
   * `null` for every worker, `reason` `"admin"`; once in each plan that has unfinished tasks, like
   * the pause it ends.
   */
  workerResumed: "worker.resumed",
} as const;

/** One of the values of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/**
 * Why a task went back to `PENDING`: the worker let it go (`shutdown`), its lease ran out
 * (`visibility_timeout`), its worker stopped heartbeating or is gone (`worker_offline`), the claim's
 * client hung up before it could be told (`client_gone`), the worker's heartbeats show it never got
 * the claim's reply (`claim_lost`), or the worker's agent cannot run on its machine
 * (`agent_unavailable`), or an operator took it back (`admin_release`); `shutdown`, `agent_unavailable` and `rate_limited` refund the attempt: see
 * {@link REFUNDING_RELEASE_REASONS}.
 */
export type ReleaseReason =
  | "agent_unavailable"
  | "shutdown"
  | "visibility_timeout"
  | "worker_offline"
  | "client_gone"
  | "claim_lost"
  | "rate_limited"
  | "workspace_unavailable"
  | "admin_release"
  | (string & {});

/**
 * Release reasons that give the attempt back: the task returns to `PENDING` with its attempt count as
 * before the attempt started, in the same statement, because the fault was the machine's, not the
 * task's. `agent_unavailable`: the agent is not logged in or not installed; `rate_limited`: the
 * provider refused with a usage or rate limit (HTTP 429/529, overloaded) after the CLI's own retries;
 * `shutdown`: the worker was stopped mid-attempt; `workspace_unavailable`: the worker's git could not
 * fetch a dependency's branch or push the task's (a remote that is down, a branch that is gone).
 * See docs/protocol.md.
 */
export const REFUNDING_RELEASE_REASONS: ReadonlySet<string> = new Set<ReleaseReason>([
  "agent_unavailable",
  "rate_limited",
  "shutdown",
  "workspace_unavailable",
]);

/**
 * The release reason of a worker that stops (Ctrl-C, SIGTERM) mid-attempt; it refunds the attempt, as
 * the stop was the user's, not the task's fault. The attempt's cost, when sent, still counts.
 */
export const SHUTDOWN_REASON = "shutdown" satisfies ReleaseReason;

/**
 * The release reason of an operator taking a claimed or running task back (`whilly plan release`): the
 * worker that held it loses its lease, so its late finish gets 409. It does not refund the attempt:
 * an operator usually releases a task that is stuck, and its attempt did run.
 */
export const ADMIN_RELEASE_REASON = "admin_release" satisfies ReleaseReason;

/** The `reason` of `worker.paused` and `worker.resumed` events an operator's pause or resume writes. */
export const ADMIN_PAUSE_REASON = "admin";

/** The release reason of a worker whose agent hit a provider limit; it refunds the attempt. */
export const RATE_LIMITED_REASON = "rate_limited" satisfies ReleaseReason;

/** The release reason of a worker whose agent cannot run on its machine; it refunds the attempt. */
export const AGENT_UNAVAILABLE_REASON = "agent_unavailable" satisfies ReleaseReason;

/**
 * The release reason of a worker whose git could not fetch a dependency's work or push the task's: the
 * machine's fault, so it refunds the attempt.
 */
export const WORKSPACE_UNAVAILABLE_REASON = "workspace_unavailable" satisfies ReleaseReason;

/** True when a release with `reason` refunds the attempt (see {@link REFUNDING_RELEASE_REASONS}). */
export function releaseRefundsAttempt(reason: string): boolean {
  return REFUNDING_RELEASE_REASONS.has(reason);
}
