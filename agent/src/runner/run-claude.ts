import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { type AgentOutcome, classifyAgentRun } from "@whilly/core";
import { claudeArgv, claudeEnv, secretsOf } from "./argv.js";
import { AttemptRecordFile } from "./attempt-record.js";
import { ATTEMPT_ID_VARIABLE } from "./end-processes.js";
import { type ProcessGroupResult, runProcessGroup } from "./process-group.js";
import type { ClaudeSettings } from "./settings.js";

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
  /** Called with output as it arrives. With `--output-format json` Claude Code prints at the end only. */
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
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
};

/**
 * Runs Claude Code once on a task and classifies the result. Never rejects for the agent's failures: a
 * missing binary, a missing working directory, a timeout, a crash or an unparsable output all come back
 * as a failed {@link AgentOutcome} with a reason. Credentials from `env` are redacted from the outcome.
 * Every process of the attempt carries a fresh `WHILLY_ATTEMPT_ID`; on Linux none of them outlives the
 * call, whether they left the agent's process group or not (docs/agent.md).
 */
export async function runClaude(input: RunClaudeInput): Promise<AgentRunResult> {
  const argv = claudeArgv(input.settings, input.prompt);
  const attemptId = randomUUID();
  const env = { ...claudeEnv(input.env, input.settings), [ATTEMPT_ID_VARIABLE]: attemptId };
  const missing = await missingDirectory(input.cwd);
  const record =
    input.stateDir === undefined ? undefined : new AttemptRecordFile(input.stateDir, attemptId, input.cwd);
  const run: ProcessGroupResult =
    missing === undefined
      ? await runProcessGroup({
          argv,
          cwd: input.cwd,
          env,
          timeoutMs: input.timeoutMs,
          killGraceMs: input.settings.killGraceMs,
          signal: input.signal,
          onOutput: input.onOutput,
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
  const outcome = classifyAgentRun({ ...run, secrets: [...(input.secrets ?? []), ...secretsOf(env)] });
  return { ...run, argv, attemptId, outcome };
}

async function missingDirectory(cwd: string): Promise<string | undefined> {
  try {
    const info = await stat(cwd);
    return info.isDirectory() ? undefined : `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}
