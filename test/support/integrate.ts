import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TaskWork, Verification } from "@whilly/core";
import { baseEnv, type CliResult, runCli, scratchDir, withStore } from "./cli.js";

/** Runs git in `dir` with `env`; its trimmed stdout. Throws on a non-zero exit. */
export function git(env: Record<string, string | undefined>, dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    env: env as NodeJS.ProcessEnv,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** A task of a plan file written by {@link Clones.importPlan}: its id, priority and dependencies. */
export type PlanTask = { id: string; priority?: string; dependencies?: string[] };

/** Top-level fields of the plan file {@link Clones.importPlan} writes, besides its tasks. */
export type PlanFields = { verify?: string[]; setup?: string; project?: string; github_issue_ref?: string };

/** What each task {@link Clones.finish} completes reports besides its work. */
export type FinishOptions = { costMicroUsd?: number; verification?: Verification };

/**
 * A bare `origin` on `main` with a first commit, a worker's clone that makes and pushes task branches,
 * and the user's clone holding the embedded store (copied from `template`), where `plan integrate` runs.
 */
export type Clones = {
  readonly env: Record<string, string | undefined>;
  readonly origin: string;
  readonly worker: string;
  readonly user: string;
  /** `whilly <argv>` in the user's clone. */
  whilly(...argv: string[]): Promise<CliResult>;
  /**
   * Commits `files` on the task's branch `whilly-tasks/p/<id>` in the worker's clone, started from
   * `base` (a commit or ref; default origin's main), and pushes it to origin.
   */
  work(taskId: string, files: Record<string, string>, base?: string): TaskWork;
  /** Imports plan `p` with these tasks and the plan-level `verify`, `setup` and other fields. */
  importPlan(tasks: readonly PlanTask[], plan?: PlanFields): Promise<void>;
  /**
   * Claims and completes tasks as a worker would, in the store's order, each reporting `works[id]`
   * (`null`: no work reported) and `finish.costMicroUsd` (default 0); stops at the first claimed task
   * not in `works`, which it releases.
   */
  finish(works: Record<string, TaskWork | null>, finish?: FinishOptions): Promise<void>;
};

/** Makes {@link Clones} in scratch directories, with git's configuration kept out of the machine's. */
export function makeClones(template: string): Clones {
  const home = scratchDir("whilly-home-");
  const config = join(home, "gitconfig");
  writeFileSync(
    config,
    "[init]\n\tdefaultBranch = main\n[user]\n\tname = Tester\n\temail = tester@example.com\n",
  );
  const env = baseEnv({
    HOME: home,
    GIT_CONFIG_GLOBAL: config,
    GIT_CONFIG_NOSYSTEM: "1",
    WHILLY_CLAUDE_KILL_GRACE_MS: "300",
  });
  const origin = join(scratchDir("whilly-origin-"), "origin.git");
  git(env, dirname(origin), "init", "-q", "--bare", "-b", "main", origin);
  const worker = join(scratchDir("whilly-worker-"), "clone");
  git(env, dirname(worker), "clone", "-q", origin, worker);
  writeFileSync(join(worker, "README.md"), "# project\n");
  git(env, worker, "add", "-A");
  git(env, worker, "commit", "-q", "-m", "init");
  git(env, worker, "push", "-q", "origin", "HEAD:refs/heads/main");
  const user = join(scratchDir("whilly-user-"), "clone");
  git(env, dirname(user), "clone", "-q", origin, user);
  mkdirSync(join(user, ".whilly"), { recursive: true });
  execFileSync("cp", ["-r", template, join(user, ".whilly", "pgdata")]);
  // The store under .whilly/ is the user's, not the project's: kept out of `git status`.
  writeFileSync(join(user, ".git", "info", "exclude"), "/.whilly/\n");
  const planDir = scratchDir("whilly-plan-");
  return {
    env,
    origin,
    worker,
    user,
    whilly: (...argv) => runCli(argv, { cwd: user, env }),
    work: (taskId, files, base = "origin/main") => {
      const branch = `whilly-tasks/p/${taskId.toLowerCase()}`;
      git(env, worker, "checkout", "-q", "-B", branch, base);
      for (const [path, text] of Object.entries(files)) writeFileSync(join(worker, path), text);
      git(env, worker, "add", "-A");
      git(env, worker, "commit", "-q", "-m", `work of ${taskId}`);
      git(env, worker, "push", "-q", "origin", `+HEAD:refs/heads/${branch}`);
      return { branch, commit: git(env, worker, "rev-parse", "HEAD") };
    },
    importPlan: async (tasks, plan = {}) => {
      const file = join(planDir, "p.json");
      const spec = {
        plan_id: "p",
        project: "Project p",
        ...plan,
        tasks: tasks.map((t) => ({
          id: t.id,
          status: "pending",
          priority: t.priority ?? "high",
          description: `Do the work of ${t.id} carefully.`,
          dependencies: t.dependencies ?? [],
          acceptance_criteria: [`${t.id} is done`],
          test_steps: ["manual: check the result"],
        })),
      };
      writeFileSync(file, JSON.stringify(spec));
      const imported = await runCli(["plan", "import", file], { cwd: user, env });
      if (imported.code !== 0) throw new Error(`plan import failed: ${imported.err}`);
    },
    finish: (works, finish = {}) =>
      withStore(user, async (store) => {
        await store.upsertWorker({ workerId: "w1", hostname: "box" });
        for (;;) {
          const task = await store.claim({ planId: "p", workerId: "w1", leaseMs: 600_000, start: true });
          if (task === undefined) return;
          const fence = { planId: "p", taskId: task.id, workerId: "w1", version: task.version };
          if (!(task.id in works)) {
            await store.release({ ...fence, reason: "test" });
            return;
          }
          const work = works[task.id] ?? undefined;
          await store.complete({
            ...fence,
            costMicroUsd: finish.costMicroUsd ?? 0,
            verification: finish.verification,
            ...(work ? { work } : {}),
          });
        }
      }),
  };
}
