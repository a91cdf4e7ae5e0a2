import type { AttemptProgress } from "@whilly/core";
import { createClaudeAdapter } from "../agents/claude/index.js";
import { type AgentRunResult, DEFAULT_STALL_TIMEOUT_MS, runAgent } from "./run-agent.js";
import type { ClaudeSettings } from "./settings.js";

export { type AgentRunResult, DEFAULT_ACTIVITY_INTERVAL_MS, DEFAULT_STALL_TIMEOUT_MS } from "./run-agent.js";

/** One attempt's input. */
export type RunClaudeInput = {
  /** The task prompt, passed as one argument. */
  readonly prompt: string;
  /** The agent's working directory (the task's workspace). */
  readonly cwd: string;
  /** Per-task limit, ms; the whole process group is killed when it runs out. */
  readonly timeoutMs: number;
  readonly settings: ClaudeSettings;
  /** The agent's environment (usually the worker's `process.env`); proxy variables are added to a copy. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stops the agent (SIGTERM to its group, then SIGKILL), e.g. on worker shutdown. */
  readonly signal?: AbortSignal;
  /** Called with output as it arrives: stream-json events on stdout, one JSON object per line. */
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /**
   * Called as the agent works, with its turns so far and the last tool it called; at most once per
   * `activityIntervalMs`, and once more with the final count when it ends. Must not throw (it is
   * caught and ignored).
   */
  readonly onActivity?: ((progress: AttemptProgress) => void) | undefined;
  /** The least time between two `onActivity` calls, ms; default {@link DEFAULT_ACTIVITY_INTERVAL_MS}. */
  readonly activityIntervalMs?: number | undefined;
  /**
   * No event on stdout for this long ends the attempt: the process group is killed and the outcome is
   * `stalled`. Default {@link DEFAULT_STALL_TIMEOUT_MS}. Claude Code prints an event per message, tool
   * result and API retry, so only a hung agent (or a tool running this long without a word) is silent.
   */
  readonly stallTimeoutMs?: number | undefined;
  /** Continue this Claude Code session (`--resume`); only found when `cwd` is the session's directory. */
  readonly resumeSessionId?: string | undefined;
  /**
   * Secrets the agent's environment does not hold but its output must not show either: whilly's own
   * (the worker token, the database URL's password), from the entry point's settings.
   */
  readonly secrets?: readonly string[];
  /**
   * The runner's state directory (`.whilly/` of `whilly run`, the worker's `--state-dir`): the attempt's
   * record goes to `<stateDir>/attempts/` while it runs, so a later runner can end what a `kill -9` left.
   */
  readonly stateDir?: string | undefined;
};

/**
 * Runs Claude Code once on a task and classifies the result: {@link runAgent} with the Claude adapter
 * and `settings.model`. Never rejects for the agent's failures: a missing binary, a missing working
 * directory, a timeout, a crash or an unparsable output all come back as a failed outcome with a
 * reason. Credentials from `env` are redacted from the outcome. Every process of the attempt carries a
 * fresh `WHILLY_ATTEMPT_ID`; on Linux none of them outlives the call (docs/agent.md).
 */
export function runClaude(input: RunClaudeInput): Promise<AgentRunResult> {
  return runAgent({
    adapter: createClaudeAdapter(input.settings),
    invocation: {
      prompt: input.prompt,
      model: input.settings.model,
      cwd: input.cwd,
      taskId: "",
      resumeSessionId: input.resumeSessionId,
      mode: "task",
    },
    timeoutMs: input.timeoutMs,
    killGraceMs: input.settings.killGraceMs,
    env: input.env,
    stallTimeoutMs: input.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
    signal: input.signal,
    onOutput: input.onOutput,
    onActivity: input.onActivity,
    activityIntervalMs: input.activityIntervalMs,
    secrets: input.secrets,
    stateDir: input.stateDir,
  });
}
