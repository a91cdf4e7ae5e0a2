import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EventRecord, TaskStore } from "@whilly/core";
import { openEmbeddedStore } from "@whilly/worker-api";
import { type Io, main } from "../../cli/src/index.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** `test/fixtures`. */
export const FIXTURES = join(ROOT, "test", "fixtures");
/** The built `whilly` executable. */
export const WHILLY_BIN = join(ROOT, "cli", "bin", "whilly.js");
/** A fake Claude Code whose behaviour is scripted per task (see the file's header). */
export const BY_TASK_AGENT = join(FIXTURES, "fake-agents", "by-task.mjs");

/** What a command did: exit code and everything it wrote. */
export type CliResult = { code: number; out: string; err: string };

/** A minimal environment: node on PATH (agents are `#!/usr/bin/env node` scripts) and nothing inherited. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    // The run's cache (see test/global-setup.ts): new embedded stores start from its template.
    WHILLY_CACHE_DIR: process.env.WHILLY_CACHE_DIR,
    ...extra,
  };
}

/** A committer for tests' own commits, so no test depends on the machine's git configuration. */
export const GIT_TEST_IDENTITY = ["-c", "user.name=whilly test", "-c", "user.email=test@localhost"] as const;

/** Makes a scratch directory under the system temp directory; removed by {@link removeAll}. */
export function scratchDir(prefix = "whilly-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
const made: string[] = [];

/** Removes every directory {@link scratchDir} made in this process. */
export function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh git repository (`git init` and an empty first commit, as `whilly run` needs for its
 * worktrees) in a scratch directory, with the embedded store copied from `template` when given (see
 * {@link makeStoreTemplate}), so no test waits for PGlite's initdb.
 * @returns the repository path.
 */
export function makeRepo(template?: string): string {
  const repo = scratchDir("whilly-repo-");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  execFileSync("git", [...GIT_TEST_IDENTITY, "commit", "-q", "--allow-empty", "-m", "init"], { cwd: repo });
  if (template !== undefined) {
    mkdirSync(join(repo, ".whilly"), { recursive: true });
    execFileSync("cp", ["-r", template, join(repo, ".whilly", "pgdata")]);
  }
  return repo;
}

/**
 * A migrated embedded store, made once with `whilly db migrate` as a user would, for {@link makeRepo} to
 * copy (closed, never opened in place). Making one takes seconds of CPU, so it is kept under the system
 * temp directory, keyed by the migrations' content and the PGlite version: every test file and later
 * runs reuse it, and a changed migration gets a new one. Call it in `beforeAll`.
 * @returns the template's data directory.
 */
export async function makeStoreTemplate(): Promise<string> {
  const key = templateKey();
  const template = join(tmpdir(), `${TEMPLATE_PREFIX}${key}`);
  if (existsSync(join(template, "PG_VERSION"))) {
    utimesSync(template, new Date(), new Date());
    return template;
  }
  const repo = makeRepo();
  const result = await runCli(["db", "migrate"], { cwd: repo });
  if (result.code !== 0) throw new Error(`could not create the store template: ${result.err}`);
  try {
    // Atomic: a template that exists is complete. Another test file may have won the race.
    renameSync(join(repo, ".whilly", "pgdata"), template);
  } catch (error) {
    if (!existsSync(join(template, "PG_VERSION"))) throw error;
  }
  // Another checkout's run on this machine may still be copying its own template: remove only those
  // no run has used for a day.
  const stale = Date.now() - 86_400_000;
  for (const old of readdirSync(tmpdir())) {
    const path = join(tmpdir(), old);
    if (old.startsWith(TEMPLATE_PREFIX) && !old.endsWith(key) && statSync(path).mtimeMs < stale)
      rmSync(path, { recursive: true, force: true });
  }
  return template;
}
const TEMPLATE_PREFIX = "whilly-test-store-";

function templateKey(): string {
  const hash = createHash("sha256");
  const migrations = join(ROOT, "drizzle", "migrations");
  for (const file of readdirSync(migrations, { recursive: true }).map(String).sort()) {
    const path = join(migrations, file);
    if (statSync(path).isFile()) hash.update(file).update(readFileSync(path));
  }
  hash.update(readFileSync(join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json")));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Opens a repository's embedded store (no whilly command may hold it), runs `use`, and closes it.
 * For reading what a command left behind: events, spend, task records.
 */
export async function withStore<T>(repo: string, use: (store: TaskStore) => Promise<T>): Promise<T> {
  const store = await openEmbeddedStore(join(repo, ".whilly", "pgdata"), {
    cacheDir: process.env.WHILLY_CACHE_DIR,
  });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** Every event of a plan, oldest first. */
export function eventsOf(repo: string, planId: string): Promise<EventRecord[]> {
  return withStore(repo, (store) => store.listEvents(planId, { limit: 1_000_000 }));
}

/** Options of {@link runCli}. */
export type RunCliOptions = {
  cwd: string;
  /** The whole environment of the command; default {@link baseEnv}. */
  env?: Record<string, string | undefined>;
  /** Pretend stdout and stderr are terminals (to see colour come and go). */
  tty?: boolean;
  confirm?: Io["confirm"];
  interrupt?: AbortSignal;
};

/** Runs `whilly <argv>` in this process through `main()`, capturing stdout and stderr as strings. */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<CliResult> {
  let out = "";
  let err = "";
  const tty = options.tty === true;
  const io: Io = {
    out: { write: (text: string) => (out += text), isTTY: tty },
    err: { write: (text: string) => (err += text), isTTY: tty },
    env: options.env ?? baseEnv(),
    cwd: options.cwd,
    confirm: options.confirm,
    interrupt: options.interrupt,
  };
  const code = await main(argv, io);
  return { code, out, err };
}

/** A `whilly` child process started by {@link spawnBin}. */
export type BinProcess = {
  readonly child: ChildProcess;
  /** Everything written so far. */
  out(): string;
  err(): string;
  /** Resolves when the process has exited and its streams closed. */
  readonly done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
};

/**
 * Starts the built `cli/bin/whilly.js` as a real child process (stdin closed: not a terminal).
 * @throws {Error} when the CLI is not built (`npx tsc -b`).
 */
export function spawnBin(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; uid?: number | undefined },
): BinProcess {
  if (!existsSync(join(ROOT, "cli", "dist", "main.js"))) {
    throw new Error("cli/dist/main.js is missing: build first (npx tsc -b)");
  }
  const child = spawn(process.execPath, [WHILLY_BIN, ...argv], {
    cwd: options.cwd,
    env: definedOnly(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? -1, signal, out, err }));
  });
  return { child, out: () => out, err: () => err, done };
}

/** Runs the built `whilly` to its end. */
export function runBin(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; uid?: number | undefined },
): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return spawnBin(argv, options).done;
}

/** Polls `check` every 50 ms until it returns a value other than `undefined`, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A task of a plan written by {@link writePlanFile}: id, priority, dependencies. */
export type TaskLine = [id: string, priority: string, dependencies?: string[]];

/**
 * Writes a plan file whose tasks all pass the decision gate. By default each task gets one attempt
 * (`max_attempts: 1`) and a `manual:` test step, so whilly runs no check and the (fake) agent's word
 * decides, as the tests of reports, faults and the queue need; tests of checks and retries give
 * `testSteps` (e.g. `["true"]`, a check that passes) and `maxAttempts`.
 */
export function writePlanFile(
  file: string,
  planId: string,
  tasks: readonly TaskLine[],
  options: { testSteps?: readonly string[] | undefined; maxAttempts?: number | undefined } = {},
): void {
  const plan = {
    project: `Project ${planId}`,
    plan_id: planId,
    max_attempts: options.maxAttempts ?? 1,
    tasks: tasks.map(([id, priority, dependencies = []]) => ({
      id,
      status: "pending",
      priority,
      description: `Do the work of ${id} carefully.`,
      dependencies,
      acceptance_criteria: [`${id} is done`],
      test_steps: options.testSteps ?? ["manual: check the result"],
    })),
  };
  writeFileSync(file, JSON.stringify(plan, null, 2));
}

/** What {@link BY_TASK_AGENT} does for one task (see the file's header). */
export type AgentStep = {
  outcome?: "ok" | "fail" | "hang" | "hang_once";
  /** The reply of a failing attempt. */
  message?: string;
  cost?: number;
  sleep_ms?: number;
  until_file?: string;
};

/**
 * The environment for a `whilly run` whose Claude Code is {@link BY_TASK_AGENT}: per-task steps, a log
 * file, a state directory (for `hang_once`), and a short grace between SIGTERM and SIGKILL.
 */
export function fakeAgentEnv(options: {
  script: Record<string, AgentStep>;
  log: string;
  state?: string;
}): Record<string, string | undefined> {
  return baseEnv({
    CLAUDE_BIN: BY_TASK_AGENT,
    FAKE_AGENT_SCRIPT: JSON.stringify(options.script),
    FAKE_AGENT_LOG: options.log,
    FAKE_AGENT_STATE: options.state,
    WHILLY_CLAUDE_KILL_GRACE_MS: "300",
  });
}

/** One line of the {@link BY_TASK_AGENT} log. */
export type AgentLogEntry = { task: string; pid: number; grandchild?: number };

/** Reads the {@link BY_TASK_AGENT} log (empty when no agent ran). */
export function readAgentLog(file: string): AgentLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AgentLogEntry);
}

/**
 * True when no process with this pid runs any more. A zombie (exited, not yet reaped by its new parent,
 * as happens to orphans in a container without an init) counts as gone.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Sends SIGKILL to a process group, ignoring one that is already gone; for test clean-up. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** True when `text` holds an ANSI escape sequence. */
export function hasAnsi(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for the escape character itself
  return /\u001b\[/.test(text);
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * A repository made from `template` holding `tasks.json`, plan `planId` with one task `X-1`, and a fake
 * Claude Code that writes nothing: `run(...flags)` is `whilly run tasks.json ...flags` there. For tests of
 * `whilly run`'s flags, where the agent's work does not matter.
 */
export function oneTaskRun(template: string, planId: string) {
  const repo = makeRepo(template);
  writePlanFile(join(repo, "tasks.json"), planId, [["X-1", "high"]]);
  const env = fakeAgentEnv({ script: {}, log: join(scratchDir("whilly-agent-"), "agent.log") });
  const run = (...argv: string[]) => runCli(["run", "tasks.json", ...argv], { cwd: repo, env });
  return { repo, run };
}
