import { randomUUID } from "node:crypto";
import {
  dropCutFragment,
  OUTPUT_TAIL_BYTES,
  outputTail,
  redactSecrets,
  secretValuesOf,
  utf8Tail,
} from "@whilly/core";
import { isKeptFromAgent } from "../runner/agent-env.js";
import { AttemptRecordFile } from "../runner/attempt-record.js";
import { ATTEMPT_ID_VARIABLE } from "../runner/end-processes.js";
import { runProcessGroup } from "../runner/process-group.js";

/** Options of {@link runShellStep}. */
export type ShellStepOptions = {
  /** The command, run as `sh -c <command>`. */
  readonly command: string;
  readonly cwd: string;
  /**
   * The agent's environment (e.g. `claudeEnv(process.env, settings)`): whilly's and git's credentials
   * are dropped again here, and `WHILLY_ATTEMPT_ID` is added.
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The step's limit, ms: its whole process tree is killed when it runs out. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL, ms. */
  readonly killGraceMs: number;
  /** Stops the step (worker shutdown). */
  readonly signal?: AbortSignal | undefined;
  /** The runner's state directory: the step's processes are recorded in `<stateDir>/attempts/` while it runs. */
  readonly stateDir?: string | undefined;
  /** Secrets to hide from the output besides those `env` holds. */
  readonly secrets?: readonly string[] | undefined;
};

/** What one shell step did. */
export type ShellStepResult = {
  /** The exit code; `null` when it was killed (timeout, abort) or never started. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** The last 4 KiB of stdout and stderr as they came, credentials redacted. */
  readonly outputTail: string;
  /** Wall time, ms. */
  readonly ms: number;
};

/** Output kept while a step runs: enough for a redacted 4 KiB tail, bytes. */
const WINDOW_BYTES = OUTPUT_TAIL_BYTES * 4;

/**
 * Runs one command through `sh -c` the way the agent runs: in its own process group, with a fresh
 * `WHILLY_ATTEMPT_ID`, so nothing it starts outlives it (Linux), with the agent's stripped environment
 * and a timeout. Never rejects: a step that cannot start comes back with `exitCode: null` and why in
 * the output tail.
 */
export async function runShellStep(options: ShellStepOptions): Promise<ShellStepResult> {
  const attemptId = randomUUID();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined && !isKeptFromAgent(key)) env[key] = value;
  }
  env[ATTEMPT_ID_VARIABLE] = attemptId;
  const record =
    options.stateDir === undefined
      ? undefined
      : new AttemptRecordFile(options.stateDir, attemptId, options.cwd);
  let window = "";
  let cut = false;
  const run = await runProcessGroup({
    argv: ["sh", "-c", options.command],
    cwd: options.cwd,
    env,
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs,
    signal: options.signal,
    maxOutputBytes: WINDOW_BYTES,
    onOutput: (chunk) => {
      const joined = window + chunk;
      window = utf8Tail(joined, WINDOW_BYTES);
      if (window.length < joined.length) cut = true;
    },
    attemptId,
    onProcesses: record && ((ids) => record.add(ids)),
  }).finally(() => record?.remove());
  const secrets = [...(options.secrets ?? []), ...secretValuesOf(options.env)];
  let text = redactSecrets(cut ? dropCutFragment(window) : window, secrets).trimEnd();
  if (run.spawnError !== undefined) text += `\nwhilly: could not start sh: ${run.spawnError.message}`;
  if (run.timedOut) text += `\nwhilly: stopped after ${options.timeoutMs} ms, the step's timeout`;
  return {
    exitCode: run.timedOut || run.aborted ? null : run.exitCode,
    timedOut: run.timedOut,
    aborted: run.aborted,
    outputTail: outputTail(text.trim()),
    ms: run.wallMs,
  };
}
