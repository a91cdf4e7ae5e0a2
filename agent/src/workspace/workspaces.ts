import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { type FinishResult, takeWork } from "./finish.js";
import { type GitRunner, gitRunner } from "./git.js";
import { type IntegrateOptions, type IntegrationResult, integrateBranch } from "./integrate.js";
import { commitLeftovers, type LeftoversResult, recordSetupPaths } from "./leftovers.js";
import { withFileLock } from "./lock.js";
import { createMutex } from "./mutex.js";
import {
  branchTip,
  checkIntegrationBranch,
  commitArgs,
  currentBranch,
  dropWorktree,
  excludeWhillyDir,
  gitTopLevel,
  isWorktreeAt,
  startCommit,
} from "./repo.js";
import { slugOf } from "./slug.js";
import { markPlan, movedBranchError, planMark, planMarkKey, recordedTip, recordTip, tipRef } from "./tip.js";
import { changedPaths, userTreeState } from "./user-tree.js";

/** The task fields a workspace needs. */
export type WorkspaceTask = { readonly id: string; readonly description: string };

/** Options of {@link openWorkspaces}. */
export type WorkspacesOptions = {
  /** A directory inside the repository (its top is found with `git rev-parse --show-toplevel`). */
  readonly repoDir: string;
  readonly planId: string;
  /** The integration branch; default `whilly/<plan-slug>`. */
  readonly branch?: string | undefined;
  /** The largest file a task's commit takes, bytes; larger ones are left out and reported. Default 50 MiB. */
  readonly maxFileBytes?: number | undefined;
  /** How often a merge waiting for another whilly process's merge looks again, ms; default 50. */
  readonly lockPollMs?: number | undefined;
  /** The environment of every git command (the entry point's, e.g. the CLI's `io.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
};

/** A task's worktree, ready for the agent. */
export type PreparedWorkspace = {
  /** The worktree's directory, `<repo>/.whilly/worktrees/<plan-slug>/<task-slug>`. */
  readonly dir: string;
  /** The task's branch, `whilly-tasks/<plan-slug>/<task-slug>`. */
  readonly branch: string;
  /** The commit the worktree started from (the integration branch's tip then). */
  readonly base: string;
  /** True when the worktree a previous attempt left was kept, with its work and agent session. */
  readonly reused: boolean;
};

/** Where a task's work is kept: its worktree and branch. */
export type KeptWorkspace = { readonly dir: string; readonly branch: string };

/** The git worktrees of one plan's run; see {@link openWorkspaces}. Every method may throw ConfigurationError when git fails. */
export type Workspaces = {
  /** The repository's top directory. */
  readonly repoDir: string;
  readonly integrationBranch: string;
  /** The commit HEAD was at when the workspaces were opened. */
  readonly startCommit: string;
  /** The branch checked out then; `undefined` for a detached HEAD. */
  readonly userBranch: string | undefined;
  /** True when the integration branch existed already (a resumed run builds on it). */
  readonly resumed: boolean;
  /**
   * A worktree for `task`: the one a previous attempt left when `reuse` allows and it still exists,
   * else a fresh one on the task's branch (reset) from the integration branch's tip, which holds every
   * DONE dependency's work.
   */
  prepare(task: WorkspaceTask, options: { readonly reuse: boolean }): Promise<PreparedWorkspace>;
  /** Records what the setup command made in `dir`, so {@link Workspaces.commitLeftovers} leaves it out. */
  recordSetup(dir: string): Promise<readonly string[]>;
  /**
   * Commits what the agent left in `dir` (setup's unchanged files and files over `maxFileBytes` left
   * out): the new commit (`undefined` when nothing was left) and the files left out for size. The
   * task's branch is moved to the worktree's HEAD, should the agent have switched branches.
   */
  commitLeftovers(dir: string, task: WorkspaceTask): Promise<LeftoversResult>;
  /** Merges the task's branch into the integration branch, one task at a time (see `integrateBranch`). */
  integrate(task: WorkspaceTask, options?: IntegrateOptions): Promise<IntegrationResult>;
  /** Removes the task's worktree (DONE); its branch is kept. */
  remove(task: WorkspaceTask): Promise<void>;
  /** Where a task's worktree and branch are (kept for a FAILED task, to be printed). */
  keptPaths(task: WorkspaceTask): KeptWorkspace;
  /**
   * Removes the integration worktree and fast-forwards the user's branch, or says how to; reports what
   * changed in the user's own working tree since the open (`userTreeChanged`).
   */
  finish(): Promise<FinishResult>;
};

/**
 * Opens the worktrees of a plan's run in the git repository holding `repoDir`: records the start commit
 * and the checked-out branch, creates the integration branch from the start commit unless it exists
 * (a resumed run reuses it), and keeps `.whilly/` out of git (`info/exclude`). See docs/worktrees.md.
 * @throws ConfigurationError when `repoDir` is not in a git repository, the repository has no commit
 *   yet (hint: make a first commit), or `branch` is not a usable branch name.
 */
export async function openWorkspaces(options: WorkspacesOptions): Promise<Workspaces> {
  const git = gitRunner(options.env);
  const top = await gitTopLevel(git, options.repoDir);
  if (top === undefined) {
    throw new ConfigurationError(`${options.repoDir} is not inside a git repository`, {
      hint: "run whilly in a git repository for a worktree per task, or run tasks in place one at a time",
    });
  }
  const start = await startCommit(git, top);
  const userBranch = await currentBranch(git, top);
  const planSlug = slugOf(options.planId);
  const integration = options.branch ?? `whilly/${planSlug}`;
  await checkIntegrationBranch(git, top, integration, userBranch);
  await excludeWhillyDir(git, top);
  const root = join(top, ".whilly", "worktrees", planSlug);
  // Two `whilly run` processes on one plan share the merge worktree and the branch: merges take turns.
  const lockFile = join(root, "_integration.lock");
  await mkdir(root, { recursive: true });
  // Under the lock: another process's merge moves the branch and whilly's tip one after the other.
  const resumed = await withFileLock(
    lockFile,
    async () => {
      const tip = await branchTip(git, top, integration);
      if (tip === undefined) {
        await git.ok(top, ["branch", integration, start]);
        await markPlan(git, top, integration, options.planId);
        await recordTip(git, top, integration, start);
        return false;
      }
      await resumeIntegrationBranch(git, top, integration, options.planId, tip, start);
      return true;
    },
    options.lockPollMs,
  );
  const userTreeAtOpen = await userTreeState(git, top);
  const commit = await commitArgs(git, top);
  // Worktrees are added and removed one at a time, and merges go one at a time, but a merge's checks
  // (minutes, maybe) never hold up another task's new worktree.
  const admin = createMutex();
  const merges = createMutex();
  const integrationDir = join(root, "_integration");
  const crossProcess = <T>(section: () => Promise<T>) =>
    merges(async () => {
      await mkdir(root, { recursive: true });
      return withFileLock(lockFile, section, options.lockPollMs);
    });
  const kept = (task: WorkspaceTask): KeptWorkspace => {
    const slug = slugOf(task.id);
    return { dir: join(root, slug), branch: `whilly-tasks/${planSlug}/${slug}` };
  };

  return {
    repoDir: top,
    integrationBranch: integration,
    startCommit: start,
    userBranch,
    resumed,
    prepare: (task, { reuse }) =>
      admin(async () => {
        const { dir, branch } = kept(task);
        if (reuse && (await isWorktreeAt(git, dir, "any"))) {
          const base = await git.ok(dir, ["merge-base", "HEAD", tipRef(integration)]);
          return { dir, branch, base: base.trim(), reused: true };
        }
        await dropWorktree(git, top, dir);
        // whilly's recorded tip, not the branch: one moved behind whilly's back holds no DONE work for sure.
        const base = (await recordedTip(git, top, integration)) ?? (await branchTip(git, top, integration));
        if (base === undefined) throw new ConfigurationError(`the integration branch ${integration} is gone`);
        await git.ok(top, ["worktree", "add", "-q", "-B", branch, dir, base]);
        return { dir, branch, base, reused: false };
      }),
    recordSetup: (dir) => recordSetupPaths(git, dir),
    commitLeftovers: async (dir, task) => {
      const result = await commitLeftovers(git, dir, commit, task, options.maxFileBytes);
      // An agent that switched to a branch of its own (or detached HEAD) left its work there: the task's
      // branch, which is what gets merged, follows the worktree's HEAD.
      const head = (await git.ok(dir, ["rev-parse", "HEAD"])).trim();
      const branch = kept(task).branch;
      if ((await branchTip(git, top, branch)) !== head)
        await git.ok(top, ["update-ref", `refs/heads/${branch}`, head]);
      return result;
    },
    integrate: (task, integrateOptions = {}) =>
      crossProcess(() =>
        integrateBranch(
          { git, top, dir: integrationDir, integration, commitArgs: commit },
          task,
          kept(task).branch,
          integrateOptions,
        ),
      ),
    remove: (task) => admin(() => dropWorktree(git, top, kept(task).dir)),
    keptPaths: kept,
    finish: () =>
      crossProcess(() =>
        admin(async () => {
          await dropWorktree(git, top, integrationDir);
          const userTreeChanged = changedPaths(userTreeAtOpen, await userTreeState(git, top));
          return { ...(await takeWork({ git, top, integration, start, userBranch })), userTreeChanged };
        }),
      ),
  };
}

/**
 * Checks an existing integration branch before a run builds on it: only the branch whilly made for
 * this plan (marked `branch.<name>.whillyPlan`) is resumed, and only when it still holds whilly's
 * recorded tip (or went on from it). When the user took the earlier run's work and went on, it moves up
 * to the start commit.
 * @throws ConfigurationError naming `--branch` when the branch is not this plan's, or was moved back.
 */
async function resumeIntegrationBranch(
  git: GitRunner,
  top: string,
  integration: string,
  planId: string,
  tip: string,
  start: string,
): Promise<void> {
  const mark = await planMark(git, top, integration);
  if (mark !== planId) {
    const whose =
      mark === undefined ? "was not made by whilly" : `is whilly's branch of another plan (${mark})`;
    throw new ConfigurationError(
      `--branch '${integration}' already exists and ${whose}: whilly would build on it and fast-forward your branch to it`,
      {
        hint: `name a new branch with --branch (whilly creates it), or, to use this one anyway: git config ${planMarkKey(integration)} '${planId}'`,
      },
    );
  }
  const recorded = await recordedTip(git, top, integration);
  const isAncestor = async (a: string, b: string) =>
    (await git.run(top, ["merge-base", "--is-ancestor", a, b])).code === 0;
  if (recorded !== undefined && recorded !== tip && !(await isAncestor(recorded, tip))) {
    throw movedBranchError(integration, tip, recorded);
  }
  let now = tip;
  if (tip !== start && (await isAncestor(tip, start))) {
    // The user took the earlier run's work and went on: new tasks start from where they are now.
    await git.ok(top, ["update-ref", `refs/heads/${integration}`, start, tip]);
    now = start;
  }
  await recordTip(git, top, integration, now);
}
