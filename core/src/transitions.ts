import type { TaskStatus } from "./task-status.js";

/**
 * The transitions a task can take (docs/architecture.md#the-queues-rules). `RESET` is the out-of-band
 * plan reset; `REQUEUE` an operator's retry of one failed task.
 */
export const TRANSITIONS = [
  "CLAIM",
  "START",
  "COMPLETE",
  "FAIL",
  "RETRY",
  "SKIP",
  "RELEASE",
  "RESET",
  "REQUEUE",
] as const;

/** One of {@link TRANSITIONS}. */
export type Transition = (typeof TRANSITIONS)[number];

type Edge = { readonly from: readonly TaskStatus[]; readonly to: TaskStatus };

/**
 * The transition table: the single source of truth for which status a transition may leave and where
 * it lands. The store derives its SQL status filters from it through {@link allowedFrom}.
 *
 * Source: whilly 4.x's eleven legal edges, plus `RETRY`, a failed attempt with attempts left going
 * back to `PENDING` (its event is still `FAIL`; docs/retries.md), and `RESET`, which moves any status
 * back to `PENDING` and is used only by `plan reset` and by importing a plan file over a stored plan,
 * and `REQUEUE`, an operator sending one `FAILED` task back to `PENDING` for another try
 * (`POST /api/v1/plans/{plan}/tasks/{task}/reset`; its event is `RESET`): only `FAILED`, because
 * resetting a running or finished task one by one would discard work the operator did not look at.
 */
export const TRANSITION_TABLE: Readonly<Record<Transition, Edge>> = {
  CLAIM: { from: ["PENDING"], to: "CLAIMED" },
  START: { from: ["CLAIMED"], to: "IN_PROGRESS" },
  COMPLETE: { from: ["CLAIMED", "IN_PROGRESS"], to: "DONE" },
  FAIL: { from: ["CLAIMED", "IN_PROGRESS"], to: "FAILED" },
  RETRY: { from: ["CLAIMED", "IN_PROGRESS"], to: "PENDING" },
  SKIP: { from: ["PENDING", "CLAIMED", "IN_PROGRESS"], to: "SKIPPED" },
  RELEASE: { from: ["CLAIMED", "IN_PROGRESS"], to: "PENDING" },
  RESET: { from: ["PENDING", "CLAIMED", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"], to: "PENDING" },
  REQUEUE: { from: ["FAILED"], to: "PENDING" },
};

/** The statuses `transition` may start from; the store passes this list to its `status IN (...)` filter. */
export function allowedFrom(transition: Transition): readonly TaskStatus[] {
  return TRANSITION_TABLE[transition].from;
}

/** The status `transition` lands in. */
export function targetOf(transition: Transition): TaskStatus {
  return TRANSITION_TABLE[transition].to;
}

/** True when `transition` is legal from `status`. */
export function canTransition(status: TaskStatus, transition: Transition): boolean {
  return TRANSITION_TABLE[transition].from.includes(status);
}

/**
 * The status after `transition` from `status`, or `undefined` when the table has no such edge.
 * Pure: it neither throws nor bumps versions (the store does that in SQL).
 */
export function nextStatus(status: TaskStatus, transition: Transition): TaskStatus | undefined {
  return canTransition(status, transition) ? targetOf(transition) : undefined;
}
