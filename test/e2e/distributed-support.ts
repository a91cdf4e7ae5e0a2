import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { slugOf } from "@whilly/agent";
import { fakeClaudeEnv } from "@whilly/fake-anthropic";

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
 * machines that share a remote (`whilly-worker --push`). Its post-receive hook appends
 * `<ref> <new commit>` to the file `pushes` for every ref a push updates.
 */
export function sharedOrigin(names: readonly string[]): {
  origin: string;
  clones: Map<string, string>;
  pushes: string;
} {
  const seed = gitWorkdir("seed");
  const top = scratchDir("whilly-origin-");
  const origin = join(top, "origin.git");
  const pushes = join(top, "pushes.log");
  execFileSync("git", ["clone", "-q", "--bare", seed, origin]);
  writeFileSync(pushes, "");
  const hook = join(origin, "hooks", "post-receive");
  writeFileSync(hook, `#!/bin/sh\nwhile read old new ref; do echo "$ref $new" >> '${pushes}'; done\n`);
  chmodSync(hook, 0o755);
  const clones = new Map(
    names.map((name) => {
      const dir = join(scratchDir(`whilly-${name}-`), "clone");
      execFileSync("git", ["clone", "-q", origin, dir]);
      return [name, dir] as const;
    }),
  );
  return { origin, clones, pushes };
}

/** Runs git in `dir`; its trimmed stdout. Throws on a non-zero exit. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
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

/** A registered worker: its id and bearer token. */
export type Identity = { readonly workerId: string; readonly token: string };

/** A running `whilly server` on a test database, and how to register workers with it. */
export type ControlPlane = {
  readonly url: string;
  /** The environment of `whilly` commands against the same database. */
  readonly env: Record<string, string>;
  /** Registers a worker with `whilly worker register --json`. */
  register(): Promise<Identity>;
};

/**
 * Starts `whilly server` on `databaseUrl` with short leases (`leaseS`, s), a sweep every half second and
 * a long heartbeat timeout, so a killed worker's task comes back by its lease running out. `extraEnv`
 * adds to or overrides the server's environment.
 */
export async function startControlPlane(
  databaseUrl: string,
  leaseS: number,
  extraEnv: Record<string, string> = {},
): Promise<ControlPlane> {
  const bootstrap = "e2e-bootstrap-token-0123456789abcdef";
  const env = { PATH, WHILLY_DATABASE_URL: databaseUrl };
  const server = startNode(WHILLY_BIN, ["server", "--port", "0"], {
    cwd: scratchDir("whilly-server-"),
    env: {
      ...env,
      WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrap,
      WHILLY_VISIBILITY_TIMEOUT: String(leaseS),
      WHILLY_SWEEP_INTERVAL: "0.5",
      // Workers fall silent only when killed; let the lease, not the offline sweep, take the task back.
      WHILLY_HEARTBEAT_TIMEOUT: "60",
      WHILLY_CLAIM_RECHECK: "1",
      ...extraEnv,
    },
  });
  const [, url = ""] = await server.waitForOut(/^(https?:\/\/\S+)$/m);
  const register = async (): Promise<Identity> => {
    const argv = ["worker", "register", "--connect", url, "--bootstrap-token", bootstrap, "--json"];
    const parsed = JSON.parse((await whilly(argv, env)).out) as { worker_id: string; token: string };
    return { workerId: parsed.worker_id, token: parsed.token };
  };
  return { url, env, register };
}

/**
 * Starts `whilly-worker --plan <planId> --workdir <workdir> <argv>` as `who`, with the REAL Claude Code
 * CLI pointed at the fake model at `fakeUrl` (`env` may swap the agent), a 1 s heartbeat and a 2 min
 * task timeout.
 */
export function startWorkerProcess(options: {
  readonly who: Identity;
  readonly controlUrl: string;
  readonly planId: string;
  readonly workdir: string;
  readonly fakeUrl: string;
  readonly argv?: readonly string[] | undefined;
  readonly env?: Record<string, string> | undefined;
}): Proc {
  const env = {
    ...fakeClaudeEnv({ baseUrl: options.fakeUrl, home: scratchDir("whilly-claude-home-"), path: PATH }),
    CLAUDE_BIN,
    WHILLY_MODEL: "claude-sonnet-4-6",
    WHILLY_CONTROL_URL: options.controlUrl,
    WHILLY_WORKER_TOKEN: options.who.token,
    WHILLY_CLAUDE_KILL_GRACE_MS: "1000",
    ...options.env,
  };
  const argv = ["--plan", options.planId, "--workdir", options.workdir];
  const timing = ["--heartbeat-interval", "1", "--task-timeout", "2m"];
  return startNode(WORKER_BIN, [...argv, ...timing, ...(options.argv ?? [])], { cwd: options.workdir, env });
}
