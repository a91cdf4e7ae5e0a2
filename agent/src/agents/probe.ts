import { randomUUID } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { durationText } from "@whilly/core";
import { isKeptFromAgent } from "../runner/agent-env.js";
import { ATTEMPT_ID_VARIABLE } from "../runner/end-processes.js";
import { runProcessGroup } from "../runner/process-group.js";
import type { AgentAdapter, AgentName } from "./types.js";

/** What {@link probeAgents} found. */
export type ProbeResult = {
  /** The agents whose check passed, in the order given. */
  readonly working: readonly AgentName[];
  /** Why each other one failed, for a log line (`codex: no program 'codex' on PATH`). */
  readonly failures: readonly { readonly agent: AgentName; readonly reason: string }[];
};

/** Options of {@link probeAgents}. */
export type ProbeOptions = {
  /** The most one check may take, ms; the check's process group is then killed. */
  readonly timeoutMs: number;
  /** The runner's environment (credentials are removed before the adapter's own `env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the checks run, and a relative program path is taken from. */
  readonly cwd: string;
};

/**
 * Checks, all at once, which agents start on this machine: each adapter's `versionArgv()` must exit 0
 * within `timeoutMs` (a hung one is killed with everything it started). An adapter with an empty
 * `versionArgv()` (the generic command) is only looked up: its program must be an executable file.
 * Never rejects.
 */
export async function probeAgents(
  adapters: readonly AgentAdapter[],
  options: ProbeOptions,
): Promise<ProbeResult> {
  const reasons = await Promise.all(adapters.map((adapter) => probeOne(adapter, options)));
  const working: AgentName[] = [];
  const failures: { agent: AgentName; reason: string }[] = [];
  adapters.forEach((adapter, i) => {
    const reason = reasons[i];
    if (reason === undefined) working.push(adapter.name);
    else failures.push({ agent: adapter.name, reason });
  });
  return { working, failures };
}

/** Why `adapter` does not start here, or `undefined` when it does. */
async function probeOne(adapter: AgentAdapter, options: ProbeOptions): Promise<string | undefined> {
  const argv = adapter.versionArgv();
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined && !isKeptFromAgent(key)) base[key] = value;
  }
  if (argv.length === 0) return programProblem(adapter.bin, base.PATH, options.cwd);
  const attemptId = randomUUID();
  const invocation = {
    prompt: "",
    promptFile: "",
    model: adapter.defaultModel,
    cwd: options.cwd,
    taskId: "",
    mode: "task",
  } as const;
  const env = { ...adapter.env(base, invocation), [ATTEMPT_ID_VARIABLE]: attemptId };
  const run = await runProcessGroup({
    argv,
    cwd: options.cwd,
    env,
    timeoutMs: options.timeoutMs,
    killGraceMs: 0,
    attemptId,
  });
  const command = argv.join(" ");
  if (run.spawnError) return `${command}: ${run.spawnError.message}`;
  if (run.timedOut) return `${command} did not answer within ${durationText(options.timeoutMs)}`;
  if (run.exitCode === 0) return undefined;
  const said = firstLine(run.stderr) || firstLine(run.stdout);
  const how = run.signal === null ? `exited with code ${run.exitCode}` : `was killed by ${run.signal}`;
  return `${command} ${how}${said === "" ? "" : `: ${said}`}`;
}

/**
 * Why `bin` is not a program that can be started from `cwd` (a name with a slash from `cwd`, another
 * along `path`), or `undefined` when it is one.
 */
export function programProblem(bin: string, path: string | undefined, cwd: string): string | undefined {
  if (bin === "") return "no program given";
  if (bin.includes("/")) {
    return isProgram(resolve(cwd, bin)) ? undefined : `${resolve(cwd, bin)} is not an executable file`;
  }
  const searched = path ?? "/usr/bin:/bin";
  const found = searched.split(":").some((dir) => isProgram(resolve(cwd, dir, bin)));
  return found ? undefined : `no program '${bin}' on PATH`;
}

function isProgram(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
