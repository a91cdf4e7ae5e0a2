import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { slugOf } from "@whilly/agent";

/**
 * Helpers for the multi-process tests: real `whilly server`, `whilly worker register`, `whilly plan
 * import` and `whilly-worker` processes, started from their built bins.
 */

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const WHILLY_BIN = join(ROOT, "cli", "bin", "whilly.js");
export const WORKER_BIN = join(ROOT, "agent", "bin", "whilly-worker.js");
/** The real Claude Code CLI (the pinned devDependency). */
export const CLAUDE_BIN = join(ROOT, "node_modules", ".bin", "claude");
export const FIXTURES = join(ROOT, "test", "fixtures");

/** How a process ended. */
export type Ended = { code: number | null; signal: NodeJS.Signals | null; out: string; err: string };

/** A child process with its output collected. */
export type Proc = {
  readonly child: ChildProcess;
  readonly pid: number;
  out(): string;
  err(): string;
  readonly ended: Promise<Ended>;
  /** Resolves with the first match of `pattern` in stdout, failing after `timeoutMs`. */
  waitForOut(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
};

const started: Proc[] = [];
const scratch: string[] = [];

/** PATH for the children: this node first, then the usual places (Claude Code needs a shell). */
export const PATH = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;

/** Starts `node <script> ...argv` with exactly `env` (nothing inherited), stdin closed. */
export function startNode(
  script: string,
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Proc {
  const child = spawn(process.execPath, [script, ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const ended = new Promise<Ended>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, out, err }));
  });
  const proc: Proc = {
    child,
    pid: child.pid ?? -1,
    out: () => out,
    err: () => err,
    ended,
    waitForOut: (pattern, timeoutMs = 20_000) =>
      waitUntil(`${pattern} on stdout of ${script}`, async () => out.match(pattern) ?? undefined, timeoutMs),
  };
  started.push(proc);
  return proc;
}

/** Runs `whilly <argv>` to its end and fails unless it exits 0. */
export async function whilly(argv: readonly string[], env: Record<string, string>): Promise<Ended> {
  const ended = await startNode(WHILLY_BIN, argv, { cwd: ROOT, env: { PATH, ...env } }).ended;
  if (ended.code !== 0) {
    throw new Error(`whilly ${argv.join(" ")} exited ${ended.code}:\n${ended.err}`);
  }
  return ended;
}

/** Polls `check` every 100 ms until it gives a value, failing after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A scratch directory, removed by {@link cleanUp}. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Writes a plan file (docs/plan-format.md) into a scratch directory and returns its path. */
export function writePlan(plan: { plan_id: string; project: string; tasks: object[] }): string {
  const dir = scratchDir("whilly-plan-");
  const file = join(dir, `${plan.plan_id}.tasks.json`);
  writeFileSync(file, JSON.stringify(plan, null, 2));
  return file;
}

const GIT_IDENTITY = ["-c", "user.name=whilly test", "-c", "user.email=test@localhost"];

/** A fresh git repository with a first commit, for one worker: each task runs in a worktree of it. */
export function gitWorkdir(name: string): string {
  const dir = join(scratchDir(`whilly-${name}-`), "repo");
  mkdirSync(dir);
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", [...GIT_IDENTITY, "commit", "-q", "--allow-empty", "-m", "init"], { cwd: dir });
  return dir;
}

/**
 * A bare `origin` with a first commit, and a clone of it for each of `names`: workers on separate
 * machines that share a remote (`whilly-worker --push`).
 */
export function sharedOrigin(names: readonly string[]): { origin: string; clones: Map<string, string> } {
  const seed = gitWorkdir("seed");
  const origin = join(scratchDir("whilly-origin-"), "origin.git");
  execFileSync("git", ["clone", "-q", "--bare", seed, origin]);
  const clones = new Map(
    names.map((name) => {
      const dir = join(scratchDir(`whilly-${name}-`), "clone");
      execFileSync("git", ["clone", "-q", origin, dir]);
      return [name, dir] as const;
    }),
  );
  return { origin, clones };
}

/** The branch and commit holding a task's work, as its `COMPLETE` event reports them. */
export function workOf(complete: { payload: Record<string, unknown> } | undefined): {
  branch: string;
  commit: string;
} {
  return { branch: String(complete?.payload.branch), commit: String(complete?.payload.commit) };
}

/** Where a worker with `--workdir repo` runs `taskId` of `planId`: the task's worktree (docs/worktrees.md). */
export function taskWorktree(repo: string, planId: string, taskId: string): string {
  return join(repo, ".whilly", "worktrees", slugOf(planId), slugOf(taskId));
}

/** A detached worktree of `repo` at `commit`, to look at a task's work as the task left it. */
export function checkoutOf(repo: string, commit: string): string {
  const dir = join(scratchDir("whilly-work-"), "tree");
  execFileSync("git", ["worktree", "add", "-q", "--detach", dir, commit], { cwd: repo });
  return dir;
}

/** Sends `signal` to a process group, ignoring one that is gone. */
export function killGroup(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Stops every process still running: SIGTERM first (a worker then stops its agent and releases its
 * task), SIGKILL after `graceMs`; then removes the scratch directories.
 */
export async function cleanUp(graceMs = 8000): Promise<void> {
  const running = started.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of running) p.child.kill("SIGTERM");
  const timer = setTimeout(() => {
    for (const p of running) p.child.kill("SIGKILL");
  }, graceMs);
  await Promise.all(running.map((p) => p.ended.catch(() => undefined)));
  clearTimeout(timer);
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}
