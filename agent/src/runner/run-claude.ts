import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import {
  type AgentOutcome,
  type AttemptProgress,
  classifyAgentRun,
  DEFAULT_STALL_TIMEOUT,
  parseDuration,
} from "@whilly/core";
import { claudeArgv, claudeEnv, secretsOf } from "./argv.js";
import { AttemptRecordFile } from "./attempt-record.js";
import { ATTEMPT_ID_VARIABLE } from "./end-processes.js";
import { type ProcessGroupResult, runProcessGroup } from "./process-group.js";
import type { ClaudeSettings } from "./settings.js";
import { StreamEvents, throttle } from "./stream-events.js";

/**
 * An attempt whose agent printed no event for this long is ended `stalled` when no other is given, ms:
 * `--stall-timeout`'s default ({@link DEFAULT_STALL_TIMEOUT}, 10 minutes).
 */
export const DEFAULT_STALL_TIMEOUT_MS = parseDuration(DEFAULT_STALL_TIMEOUT) ?? 600_000;

/** Progress is reported at most this often when no other interval is given, ms. */
export const DEFAULT_ACTIVITY_INTERVAL_MS = 1000;

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

/** What one attempt did: the process facts and their classification. Holds no environment. */
export type AgentRunResult = ProcessGroupResult & {
  /** The command line run (the prompt is its last element). */
  readonly argv: readonly string[];
  /** The attempt's id, `WHILLY_ATTEMPT_ID` in the agent's environment. */
  readonly attemptId: string;
  readonly outcome: AgentOutcome;
  /** The session id: the result's, else the one the stream's `init` event named, else `undefined`. */
  readonly sessionId: string | undefined;
  /** Turns and last tool as the stream showed them. */
  readonly progress: AttemptProgress;
};

/**
 * Runs Claude Code once on a task and classifies the result. Never rejects for the agent's failures: a
 * missing binary, a missing working directory, a timeout, a crash or an unparsable output all come back
 * as a failed {@link AgentOutcome} with a reason. Credentials from `env` are redacted from the outcome.
 * Every process of the attempt carries a fresh `WHILLY_ATTEMPT_ID`; on Linux none of them outlives the
 * call, whether they left the agent's process group or not (docs/agent.md).
 */
export async function runClaude(input: RunClaudeInput): Promise<AgentRunResult> {
  const argv = claudeArgv(input.settings, input.prompt, { resumeSessionId: input.resumeSessionId });
  const attemptId = randomUUID();
  const env = { ...claudeEnv(input.env, input.settings), [ATTEMPT_ID_VARIABLE]: attemptId };
  const missing = await missingDirectory(input.cwd);
  const record =
    input.stateDir === undefined ? undefined : new AttemptRecordFile(input.stateDir, attemptId, input.cwd);
  const activity = throttle(
    (progress: AttemptProgress) => input.onActivity?.(progress),
    input.activityIntervalMs ?? DEFAULT_ACTIVITY_INTERVAL_MS,
  );
  const stream = new StreamEvents(input.onActivity && ((progress) => activity.push(progress)));
  const onOutput = (chunk: string, from: "stdout" | "stderr") => {
    if (from === "stdout") stream.push(chunk);
    input.onOutput?.(chunk, from);
  };
  const stallTimeoutMs = input.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const run: ProcessGroupResult =
    missing === undefined
      ? await runProcessGroup({
          argv,
          cwd: input.cwd,
          env,
          timeoutMs: input.timeoutMs,
          stallTimeoutMs,
          killGraceMs: input.settings.killGraceMs,
          signal: input.signal,
          onOutput,
          attemptId,
          onProcesses: record && ((ids) => record.add(ids)),
        }).finally(() => record?.remove())
      : {
          exitCode: null,
          signal: null,
          stdout: "",
          stderr: "",
          timedOut: false,
          aborted: false,
          spawnError: { code: "ENOTDIR", message: missing },
          wallMs: 0,
        };
  stream.push("\n");
  activity.stop();
  const secrets = [...(input.secrets ?? []), ...secretsOf(env)];
  const classified = classifyAgentRun({ ...run, stallTimeoutMs, secrets });
  const outcome = withStreamFacts(classified, stream);
  const progress = { ...stream.progress, turns: Math.max(stream.progress.turns ?? 0, outcome.numTurns) };
  if (input.onActivity && progress.turns > 0) reportQuietly(input.onActivity, progress);
  const sessionId = outcome.sessionId ?? undefined;
  return { ...run, argv, attemptId, outcome, sessionId, progress };
}

/**
 * The outcome with what only the stream showed: the session id of a run killed before its result (a
 * stall, a timeout), and the reset time of a limit the result text did not name.
 */
function withStreamFacts(outcome: AgentOutcome, stream: StreamEvents): AgentOutcome {
  const sessionId = outcome.sessionId ?? stream.sessionId ?? null;
  const limited =
    outcome.limited !== undefined && outcome.limited.until === undefined && stream.limitResetsAt
      ? { ...outcome.limited, until: stream.limitResetsAt }
      : outcome.limited;
  return limited === undefined ? { ...outcome, sessionId } : { ...outcome, sessionId, limited };
}

function reportQuietly(report: (progress: AttemptProgress) => void, progress: AttemptProgress): void {
  try {
    report(progress);
  } catch {
    // Progress is best effort; a caller's bug must not end the attempt.
  }
}

async function missingDirectory(cwd: string): Promise<string | undefined> {
  try {
    const info = await stat(cwd);
    return info.isDirectory() ? undefined : `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}
