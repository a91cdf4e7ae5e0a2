import { randomUUID } from "node:crypto";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentOutcome,
  type AttemptProgress,
  classifyAgentRun,
  DEFAULT_STALL_TIMEOUT,
  parseDuration,
} from "@whilly/core";
import type { AgentAdapter, AgentInvocation, AgentStreamReader } from "../agents/types.js";
import { isKeptFromAgent } from "./agent-env.js";
import { secretsOf } from "./argv.js";
import { AttemptRecordFile } from "./attempt-record.js";
import { ATTEMPT_ID_VARIABLE } from "./end-processes.js";
import { type ProcessGroupResult, runProcessGroup } from "./process-group.js";
import { throttle } from "./stream-events.js";

/**
 * An attempt whose agent printed no event for this long is ended `stalled` when no other is given, ms:
 * `--stall-timeout`'s default ({@link DEFAULT_STALL_TIMEOUT}, 10 minutes).
 */
export const DEFAULT_STALL_TIMEOUT_MS = parseDuration(DEFAULT_STALL_TIMEOUT) ?? 600_000;

/** Progress is reported at most this often when no other interval is given, ms. */
export const DEFAULT_ACTIVITY_INTERVAL_MS = 1000;

/** One run of an agent through its adapter. Durations are ms. */
export type RunAgentInput = {
  readonly adapter: AgentAdapter;
  /** What the run is asked (prompt, model, directory, session, mode); the runner adds the prompt file. */
  readonly invocation: Omit<AgentInvocation, "promptFile">;
  /** The whole process group is killed when this runs out. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** The runner's environment; whilly's and git's credentials are removed before the adapter's `env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** No output on stdout for this long ends the run `stalled`; no stall detection when undefined. */
  readonly stallTimeoutMs?: number | undefined;
  /** Stops the agent (SIGTERM to its group, then SIGKILL), e.g. on worker shutdown. */
  readonly signal?: AbortSignal | undefined;
  /** Called with output as it arrives. */
  readonly onOutput?: ((chunk: string, stream: "stdout" | "stderr") => void) | undefined;
  /** Progress (turns, last tool), at most once per `activityIntervalMs` and once at the end; must not throw. */
  readonly onActivity?: ((progress: AttemptProgress) => void) | undefined;
  readonly activityIntervalMs?: number | undefined;
  /** Values to hide from the outcome besides the credentials of the child's environment. */
  readonly secrets?: readonly string[] | undefined;
  /** Where the running attempt is recorded (`<stateDir>/attempts/`); none when undefined. */
  readonly stateDir?: string | undefined;
};

/** What one attempt did: the process facts and their classification. Holds no environment. */
export type AgentRunResult = ProcessGroupResult & {
  /** The command line run. */
  readonly argv: readonly string[];
  /** The attempt's id, `WHILLY_ATTEMPT_ID` in the agent's environment. */
  readonly attemptId: string;
  readonly outcome: AgentOutcome;
  /** The session id: the result's, else the one the stream named, else `undefined`. */
  readonly sessionId: string | undefined;
  /** Turns and last tool as the stream showed them. */
  readonly progress: AttemptProgress;
};

/**
 * Runs an agent CLI once through its adapter and classifies the result with the shared classifier
 * (`classifyAgentRun`, with the adapter's result and success rule; `answer` for an answer). The
 * prompt is also written to a private temporary file (`promptFile`), removed afterwards. Never rejects
 * for the agent's failures: a missing binary or directory, a timeout, a stall, a crash or unreadable
 * output come back as a failed {@link AgentOutcome}. Every process of the run carries a fresh
 * `WHILLY_ATTEMPT_ID`; on Linux none outlives the call (docs/agent.md). Credentials are redacted.
 */
export async function runAgent(input: RunAgentInput): Promise<AgentRunResult> {
  const promptDir = await mkdtemp(join(tmpdir(), "whilly-prompt-"));
  try {
    const promptFile = join(promptDir, "prompt.md");
    await writeFile(promptFile, input.invocation.prompt, { mode: 0o600 });
    return await runWith(input, { ...input.invocation, promptFile });
  } finally {
    await rm(promptDir, { recursive: true, force: true });
  }
}

async function runWith(input: RunAgentInput, invocation: AgentInvocation): Promise<AgentRunResult> {
  const { adapter } = input;
  const argv = adapter.argv(invocation);
  const attemptId = randomUUID();
  const env = { ...adapter.env(withoutCredentials(input.env), invocation), [ATTEMPT_ID_VARIABLE]: attemptId };
  const missing = await missingDirectory(invocation.cwd);
  const record =
    input.stateDir === undefined
      ? undefined
      : new AttemptRecordFile(input.stateDir, attemptId, invocation.cwd);
  const activity = throttle(
    (progress: AttemptProgress) => input.onActivity?.(progress),
    input.activityIntervalMs ?? DEFAULT_ACTIVITY_INTERVAL_MS,
  );
  const stream = adapter.stream(input.onActivity ? (progress) => activity.push(progress) : () => {});
  const onOutput = (chunk: string, from: "stdout" | "stderr") => {
    if (from === "stdout") stream.push(chunk);
    input.onOutput?.(chunk, from);
  };
  const run: ProcessGroupResult =
    missing === undefined
      ? await runProcessGroup({
          argv,
          cwd: invocation.cwd,
          env,
          timeoutMs: input.timeoutMs,
          stallTimeoutMs: input.stallTimeoutMs,
          stallOnStderr: adapter.stderrIsActivity,
          killGraceMs: input.killGraceMs,
          signal: input.signal,
          onOutput,
          attemptId,
          onProcesses: record && ((ids) => record.add(ids)),
        }).finally(() => record?.remove())
      : notStarted(missing);
  stream.push("\n");
  activity.stop();
  const secrets = [...(input.secrets ?? []), ...secretsOf(env)];
  const result = run.spawnError ? null : (adapter.result(run, invocation) ?? null);
  const resultRule = invocation.mode === "answer" ? "answer" : adapter.successRule;
  const classified = classifyAgentRun({
    ...run,
    ...(input.stallTimeoutMs === undefined ? {} : { stallTimeoutMs: input.stallTimeoutMs }),
    secrets,
    result,
    resultRule,
  });
  const outcome = withStreamFacts(classified, stream);
  const progress = { ...stream.progress, turns: Math.max(stream.progress.turns ?? 0, outcome.numTurns) };
  if (input.onActivity && progress.turns > 0) reportQuietly(input.onActivity, progress);
  const sessionId = outcome.sessionId ?? undefined;
  return { ...run, argv, attemptId, outcome, sessionId, progress };
}

/** The runner's environment without unset entries and without whilly's and git's credentials. */
function withoutCredentials(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !isKeptFromAgent(key)) out[key] = value;
  }
  return out;
}

/**
 * The outcome with what only the stream showed: the session id of a run killed before its result (a
 * stall, a timeout), and the reset time of a limit the result text did not name.
 */
function withStreamFacts(outcome: AgentOutcome, stream: AgentStreamReader): AgentOutcome {
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

function notStarted(message: string): ProcessGroupResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    aborted: false,
    spawnError: { code: "ENOTDIR", message },
    wallMs: 0,
  };
}

async function missingDirectory(cwd: string): Promise<string | undefined> {
  try {
    const info = await stat(cwd);
    return info.isDirectory() ? undefined : `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}
