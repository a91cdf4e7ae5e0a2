/**
 * What whilly records of an attempt beyond the agent's own verdict: its checks, why it failed, and what
 * the next attempt is told. Shared by the store (which keeps the last failure and decides retries), the
 * runners (which run checks and build the retry prompt) and the read API. See docs/verification.md.
 */

import type { AgentFailureReason } from "../agent-result/outcome.js";

/**
 * How a DONE task was accepted: `passed` when every runnable check passed, `unverified` when the task
 * had no runnable check and DONE rests on the agent's word.
 */
export type Verification = "passed" | "unverified";

/** The values of {@link Verification}. */
export const VERIFICATIONS = ["passed", "unverified"] as const satisfies readonly Verification[];

/**
 * Failure reasons whilly itself decides, besides the agent outcome's (`no_marker`, `timeout`, ...):
 * a check failed in the task's worktree, the task's branch did not merge into the integration branch,
 * the plan's checks failed on the merged tree, or the agent printed nothing for the stall timeout.
 */
export const WHILLY_FAILURE_REASONS = {
  verificationFailed: "verification_failed",
  mergeConflict: "merge_conflict",
  integrationFailed: "integration_failed",
  stalled: "stalled",
  setupFailed: "setup_failed",
} as const;

/**
 * The previous attempt's failure, as the store keeps it (`tasks.last_failure`) and a claim carries it
 * (`previous_failure`): the retry's prompt says what went wrong. JSON field names, snake_case.
 */
export type AttemptFailure = {
  /** The attempt's number (1 for the first). */
  readonly attempt: number;
  readonly reason: string;
  /** The check that failed (`verification_failed`, `integration_failed`), as written in the plan. */
  readonly step?: string | undefined;
  readonly exit_code?: number | null | undefined;
  /** The end of the failing check's output, or of the agent's, at most `OUTPUT_TAIL_BYTES` (4 KiB). */
  readonly output_tail?: string | undefined;
  /** The agent's session id, so the machine that kept the worktree can resume it. */
  readonly session_id?: string | undefined;
  /** The agent the session belongs to (`claude` when absent): a session resumes only on the same agent. */
  readonly agent?: string | undefined;
  /** The worker that ran the attempt: only it holds the worktree a resume needs. */
  readonly worker_id?: string | undefined;
  /** Checks found to be manual (`manual:` or not a command, exit 127): not run again. */
  readonly manual_steps?: readonly string[] | undefined;
};

/** The number of attempts a task gets when neither it, its plan nor `--max-attempts` says. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** The largest `max_attempts` accepted anywhere. */
export const MAX_MAX_ATTEMPTS = 100;

/**
 * A task's attempt limit: its own `max_attempts`, else its plan's, else {@link DEFAULT_MAX_ATTEMPTS}.
 * The store applies the same rule in SQL.
 */
export function effectiveMaxAttempts(task: number | undefined, plan: number | undefined): number {
  return task ?? plan ?? DEFAULT_MAX_ATTEMPTS;
}

/**
 * The pause before attempt `attempt + 1` after a failed attempt `attempt` (≥ 1): `baseMs` doubled per
 * attempt, at most `capMs`. In ms. The store computes the same in SQL, by the database clock.
 */
export function retryBackoffMs(attempt: number, baseMs: number, capMs: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(capMs, baseMs * 2 ** exponent);
}

/** Every {@link AgentFailureReason}, as values: the list below must name each one (checked at compile time). */
const AGENT_FAILURE_REASONS = [
  "agent_unavailable",
  "spawn_failed",
  "timeout",
  "stalled",
  "aborted",
  "rate_limited",
  "killed",
  "nonzero_exit",
  "no_output",
  "parse_error",
  "max_turns",
  "max_budget",
  "error_subtype",
  "is_error",
  "permission_denied",
  "empty_result",
  "no_marker",
] as const satisfies readonly AgentFailureReason[];

// A reason added to AgentFailureReason but not above fails to compile here.
const everyAgentReason: Exclude<AgentFailureReason, (typeof AGENT_FAILURE_REASONS)[number]> extends never
  ? true
  : false = true;
void everyAgentReason;

/**
 * The fail reasons whilly's own workers send (`POST /tasks/{id}/fail`'s `reason`): the agent outcome's,
 * whilly's checks' ({@link WHILLY_FAILURE_REASONS}) and `failed`, a failed run with no reason of its own.
 * The protocol lets any client send any text, so whatever reads reasons as a closed set (the `reason`
 * label of `whilly_fails_total`) counts others under {@link OTHER_FAIL_REASON}.
 */
export const KNOWN_FAIL_REASONS: readonly string[] = [
  ...new Set<string>([...AGENT_FAILURE_REASONS, ...Object.values(WHILLY_FAILURE_REASONS), "failed"]),
].sort();

/** Where a reason outside {@link KNOWN_FAIL_REASONS} is counted. */
export const OTHER_FAIL_REASON = "other";
