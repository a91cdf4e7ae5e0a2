import { type AttemptFailure, type TaskPayload, WHILLY_FAILURE_REASONS } from "@whilly/core";

/**
 * The claim's `previous_failure` as an {@link AttemptFailure}, fields of the wrong type dropped (the
 * wire carries any JSON object); `undefined` when there is none or it names no reason.
 */
export function previousFailureOf(task: TaskPayload): AttemptFailure | undefined {
  const raw = task.previous_failure;
  if (raw === null || raw === undefined || typeof raw.reason !== "string") return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const manual = Array.isArray(raw.manual_steps)
    ? raw.manual_steps.filter((s): s is string => typeof s === "string")
    : undefined;
  const exit = raw.exit_code;
  return {
    attempt: typeof raw.attempt === "number" ? raw.attempt : Math.max(1, task.attempts - 1),
    reason: raw.reason,
    ...(text(raw.step) === undefined ? {} : { step: text(raw.step) }),
    ...(typeof exit === "number" || exit === null ? { exit_code: exit } : {}),
    ...(text(raw.output_tail) === undefined ? {} : { output_tail: text(raw.output_tail) }),
    ...(text(raw.session_id) === undefined ? {} : { session_id: text(raw.session_id) }),
    ...(text(raw.agent) === undefined ? {} : { agent: text(raw.agent) }),
    ...(text(raw.worker_id) === undefined ? {} : { worker_id: text(raw.worker_id) }),
    ...(manual === undefined ? {} : { manual_steps: manual }),
  };
}

/** Reasons after which the kept worktree is not reused: a merge conflict needs the new base, a failed setup a fresh tree. */
const FRESH_AFTER: readonly string[] = [
  WHILLY_FAILURE_REASONS.mergeConflict,
  WHILLY_FAILURE_REASONS.setupFailed,
];

/**
 * Whether this attempt may continue where the previous one stopped: only on a worker of this machine
 * (`workerIds`: this one, and the other slots sharing its worktrees), which holds the worktree and the
 * agent's session, and not after a merge conflict or a failed setup.
 */
export function mayReuse(
  previous: AttemptFailure | undefined,
  workerIds: string | readonly string[],
): boolean {
  const local = typeof workerIds === "string" ? [workerIds] : workerIds;
  return (
    previous !== undefined &&
    previous.worker_id !== undefined &&
    local.includes(previous.worker_id) &&
    !FRESH_AFTER.includes(previous.reason)
  );
}
