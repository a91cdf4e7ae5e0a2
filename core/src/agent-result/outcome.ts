import type { MicroUsd } from "../money.js";
import type { ProviderLimit } from "./limits.js";

/**
 * What the runner observed of one agent process, the input of {@link classifyAgentRun}.
 * Text fields are already decoded (UTF-8, invalid bytes replaced).
 */
export type AgentRunReport = {
  /** The exit code, or `null` when the process was ended by a signal or never started. */
  readonly exitCode: number | null;
  /** The signal that ended the process (`"SIGKILL"`), or `null`. */
  readonly signal: string | null;
  /** Everything the agent printed on stdout, read to its end. */
  readonly stdout: string;
  readonly stderr: string;
  /** The runner killed the process because the per-task timeout ran out. */
  readonly timedOut: boolean;
  /** The runner killed the process because it printed nothing on stdout for the stall timeout. */
  readonly stalled?: boolean;
  /** The stall timeout the runner used, ms: the stall message names it. */
  readonly stallTimeoutMs?: number;
  /** The runner killed the process because its caller aborted (worker shutdown). */
  readonly aborted?: boolean;
  /** Set when the process could not be started (e.g. `code: "ENOENT"` for a missing binary). */
  readonly spawnError?: { readonly code: string | undefined; readonly message: string };
  /** Wall-clock run time in ms, used when the agent reported no `duration_ms` of its own. */
  readonly wallMs?: number;
  /** Values that must never appear in the outcome (API keys, tokens); each is replaced by `[redacted]`. */
  readonly secrets?: readonly string[];
  /** The time a limit's reset is computed from (the next such time after it); default now. */
  readonly now?: Date;
  /** The IANA zone of a reset time printed without one; default this process's zone. */
  readonly hostZone?: string;
  /**
   * What a successful run's final text must be: `completion-marker` (a task attempt's, the default) ends
   * with `<promise>COMPLETE</promise>`; `answer` (plan generation's) is the answer itself, so any
   * non-empty text passes; `exit-code` (a generic command's) needs no text at all: exit 0 is success
   * and whilly's checks decide the rest.
   */
  readonly resultRule?: "completion-marker" | "answer" | "exit-code";
  /**
   * The result the agent's adapter read from the output (`AgentAdapter.result`); `null` when it found
   * none. When absent, the result is looked for as Claude Code prints it (a `result` object on stdout,
   * else on stderr).
   */
  readonly result?: RawAgentResult | null;
};

/**
 * Why an attempt failed. The order of the checks, first match wins:
 * `agent_unavailable` (the agent cannot run on this machine: binary missing or not executable, not
 * logged in, credentials refused; see `agentUnavailable`), `spawn_failed` (could not start otherwise), `timeout` (per-task limit hit), `stalled` (no output for the stall timeout), `aborted` (worker
 * shutdown), `rate_limited` (a failed run refused by the provider for a usage or rate limit, 429 or 529
 * after the CLI's own retries; see `providerLimit`), then without a result JSON: `killed` (signal, nothing printed), `nonzero_exit` (no JSON, exit
 * code not 0), `no_output` (exit 0, nothing printed), `parse_error` (printed something that holds no result
 * object); then from the result JSON: `max_turns` (`error_max_turns`), `max_budget` (`error_max_budget_usd`),
 * `error_subtype` (any other subtype than `success`, e.g. `error_during_execution` even with
 * `is_error: false`), `is_error` (API errors keep subtype `success`), `nonzero_exit` (`is_error: false`
 * with a non-zero exit), `permission_denied` (a tool call was denied; the CLI still reports success),
 * `empty_result` (no final text), `no_marker` (the final text does not end with the completion marker).
 */
export type AgentFailureReason =
  | "agent_unavailable"
  | "spawn_failed"
  | "timeout"
  | "stalled"
  | "aborted"
  | "rate_limited"
  | "killed"
  | "nonzero_exit"
  | "no_output"
  | "parse_error"
  | "max_turns"
  | "max_budget"
  | "error_subtype"
  | "is_error"
  | "permission_denied"
  | "empty_result"
  | "no_marker";

/**
 * Why the agent cannot run on this machine at all, whatever the task: `auth` (not logged in, an API key
 * or token refused) or `install` (the binary is missing, not executable, or a placeholder whose install
 * step never ran). Such a run is the machine's fault, not the task's: the task goes back with its
 * attempt refunded, and the runner stops (docs/agent.md).
 */
export type AgentUnavailableKind = "auth" | "install";

/** Token counts the agent reported, summed over its turns. */
export type AgentUsage = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheCreationTokens: number;
};

/** A tool call the agent's permission rules refused (`permission_denials` in Claude Code's JSON). */
export type PermissionDenial = { readonly toolName: string; readonly toolUseId: string | null };

/** The verdict on one attempt. Safe to store and print: secrets are redacted, text is bounded. */
export type AgentOutcome = {
  /** True only for exit 0, no error, subtype `success`, no denials, and the marker ending the result. */
  readonly ok: boolean;
  /** Set exactly when `ok` is false. */
  readonly reason?: AgentFailureReason;
  /** Set exactly when `reason` is `agent_unavailable`: what is missing, credentials or the install. */
  readonly unavailable?: AgentUnavailableKind;
  /**
   * Set exactly when `reason` is `rate_limited`: the provider's message and when it said the limit
   * resets (`undefined` when it did not say). Not the task's failure: the attempt is given back.
   */
  readonly limited?: ProviderLimit;
  /** One line for people: what happened. */
  readonly message: string;
  /** The agent's own price of the attempt (`total_cost_usd`), integer micro-USD; 0 when unknown. Failed runs keep it. */
  readonly costMicroUsd: MicroUsd;
  /** `num_turns`; 0 when unknown. */
  readonly numTurns: number;
  /** `duration_ms` from the agent, else the runner's wall time, in ms. */
  readonly durationMs: number;
  readonly sessionId: string | null;
  /** The final assistant text (`result`), or `null` when there was none. */
  readonly resultText: string | null;
  /** Claude Code's `subtype` (`success`, `error_max_turns`, ...), or `null` without a result JSON. */
  readonly subtype: string | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly usage: AgentUsage;
  readonly permissionDenials: readonly PermissionDenial[];
  /** The CLI's `errors` array (e.g. `Reached maximum number of turns (1)`). */
  readonly errors: readonly string[];
  /** The end of what the agent printed (stderr, errors, then the result or raw stdout), at most 4 KiB of UTF-8. */
  readonly outputTail: string;
};

/**
 * An agent run's result in the shape the shared classifier reads, Claude Code's result object: `type:
 * "result"`, `subtype` (`success`, `error_max_turns`, `error_during_execution`, ...), `is_error`, `result`
 * (the final text), `total_cost_usd`, `num_turns`, `duration_ms`, `session_id`, `usage` (`input_tokens`,
 * `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`), `errors` (strings),
 * `permission_denials`, `api_error_status`. Other agents' adapters fold their output into it.
 */
export type RawAgentResult = { readonly [key: string]: unknown };
