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
  /**
   * Why each other one failed, for a log line (`codex: no program 'codex' on PATH`); `missing` when its
   * program was not found at all (not installed here).
   */
  readonly failures: readonly {
    readonly agent: AgentName;
    readonly reason: string;
    readonly missing: boolean;
  }[];
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
 * Checks, all at once, which agents start on this machine: each adapter's program must be found (a name
 * along `PATH`, a path as an executable file), then its `versionArgv()` must exit 0 within `timeoutMs` (a
 * hung one is killed with everything it started). An adapter with an empty `versionArgv()` (the generic
 * command) is only looked up.
 * Never rejects.
 */
export async function probeAgents(
  adapters: readonly AgentAdapter[],
  options: ProbeOptions,
): Promise<ProbeResult> {
  const reasons = await Promise.all(adapters.map((adapter) => probeOne(adapter, options)));
  const working: AgentName[] = [];
  const failures: { agent: AgentName; reason: string; missing: boolean }[] = [];
  adapters.forEach((adapter, i) => {
    const failed = reasons[i];
    if (failed === undefined) working.push(adapter.name);
    else failures.push({ agent: adapter.name, ...failed });
  });
  return { working, failures };
}

/** Why `adapter` does not start here, or `undefined` when it does. */
async function probeOne(
  adapter: AgentAdapter,
  options: ProbeOptions,
): Promise<{ reason: string; missing: boolean } | undefined> {
  const argv = adapter.versionArgv();
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined && !isKeptFromAgent(key)) base[key] = value;
  }
  // A program that is not there is not started at all: the common case of a CLI not installed here.
  const lookup = programProblem(argv[0] ?? adapter.bin, base.PATH, options.cwd);
  if (lookup !== undefined) return { reason: lookup, missing: true };
  if (argv.length === 0) return undefined;
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
  const failed = (reason: string) => ({ reason, missing: false });
  if (run.spawnError) return failed(`${command}: ${run.spawnError.message}`);
  if (run.timedOut) return failed(`${command} did not answer within ${durationText(options.timeoutMs)}`);
  if (run.exitCode === 0) return undefined;
  const said = firstLine(run.stderr) || firstLine(run.stdout);
  const how = run.signal === null ? `exited with code ${run.exitCode}` : `was killed by ${run.signal}`;
  return failed(`${command} ${how}${said === "" ? "" : `: ${said}`}`);
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
