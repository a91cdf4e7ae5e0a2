import { stat } from "node:fs/promises";
import { type AgentOutcome, classifyAgentRun } from "@whilly/core";
import { claudeArgv, claudeEnv, secretsOf } from "./argv.js";
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
};

/** What one attempt did: the process facts and their classification. Holds no environment. */
export type AgentRunResult = ProcessGroupResult & {
  /** The command line run (the prompt is its last element). */
  readonly argv: readonly string[];
  readonly outcome: AgentOutcome;
};

/**
 * Runs Claude Code once on a task and classifies the result. Never rejects for the agent's failures: a
 * missing binary, a missing working directory, a timeout, a crash or an unparsable output all come back
 * as a failed {@link AgentOutcome} with a reason. Credentials from `env` are redacted from the outcome.
 */
export async function runClaude(input: RunClaudeInput): Promise<AgentRunResult> {
  const argv = claudeArgv(input.settings, input.prompt);
  const env = claudeEnv(input.env, input.settings);
  const missing = await missingDirectory(input.cwd);
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
        })
      : {
          exitCode: null,
          signal: null,
          stdout: "",
          stderr: "",
          timedOut: false,
          aborted: false,
          spawnError: { code: "ENOENT", message: missing },
          wallMs: 0,
        };
  const outcome = classifyAgentRun({ ...run, secrets: [...(input.secrets ?? []), ...secretsOf(env)] });
  return { ...run, argv, outcome };
}

async function missingDirectory(cwd: string): Promise<string | undefined> {
  try {
    const info = await stat(cwd);
    return info.isDirectory() ? undefined : `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}
