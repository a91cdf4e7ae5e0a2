import { type AttemptFailure, effectiveMaxAttempts, type Verification } from "../attempts/index.js";
import type { TaskStatus } from "../task-status.js";
import { terminalText } from "./terminal-text.js";

/** What {@link describeAttempts} reads of a task; the fields of a stored task (`TaskRecord`). */
export type TaskAttempts = {
  readonly status: TaskStatus;
  /** Attempts so far; absent counts as 0. */
  readonly attempts?: number | undefined;
  readonly maxAttempts?: number | undefined;
  readonly notBefore?: Date | undefined;
  readonly lastFailure?: AttemptFailure | undefined;
  readonly verification?: Verification | undefined;
};

/**
 * `attempts 1/3`: attempts used of the task's limit ({@link effectiveMaxAttempts} of the task's and
 * the plan's `max_attempts`), or `undefined` for a task never attempted (nothing to say). Pure.
 */
export function describeAttempts(
  task: TaskAttempts,
  planMaxAttempts: number | undefined,
): string | undefined {
  const attempts = task.attempts ?? 0;
  if (attempts === 0 && task.lastFailure === undefined) return undefined;
  return `attempts ${attempts}/${effectiveMaxAttempts(task.maxAttempts, planMaxAttempts)}`;
}

/**
 * What became of the task's last failed attempt, or `undefined` when none failed: `retry not before
 * 2026-12-01T23:10:00Z · last failure (attempt 1): verification_failed, step 'npm test', exit 1`.
 * The not-before time (UTC, to the second) only for a PENDING task. Pure.
 */
export function describeRetry(task: TaskAttempts): string | undefined {
  const parts: string[] = [];
  if (task.status === "PENDING" && task.notBefore !== undefined) {
    parts.push(`retry not before ${utcSeconds(task.notBefore)}`);
  }
  if (task.lastFailure !== undefined) parts.push(describeFailure(task.lastFailure));
  return parts.length === 0 ? undefined : parts.join(" · ");
}

/** `last failure (attempt 2): integration_failed, step 'npm test', exit 1`; stored text escaped. */
export function describeFailure(failure: AttemptFailure): string {
  const details = [terminalText(failure.reason)];
  if (failure.step !== undefined) details.push(`step '${terminalText(failure.step)}'`);
  if (typeof failure.exit_code === "number") details.push(`exit ${failure.exit_code}`);
  return `last failure (attempt ${failure.attempt}): ${details.join(", ")}`;
}

/** `2026-12-01T23:10:00Z`: ISO 8601 in UTC without milliseconds. */
function utcSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
