import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { type FinishResult, takeWork } from "./finish.js";
import { type GitRunner, gitRunner } from "./git.js";
import { type IntegrateOptions, type IntegrationResult, integrateBranch } from "./integrate.js";
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
  startCommit,
} from "./repo.js";
import { slugOf } from "./slug.js";
import { taskWorkspaces, worktreesRoot } from "./task-trees.js";
import { markPlan, movedBranchError, planMark, planMarkKey, recordedTip, recordTip } from "./tip.js";
import type { Delivery, TaskWorkspaces, WorkspaceTask } from "./types.js";
import { changedPaths, userTreeState } from "./user-tree.js";

export type {
  CommittedWork,
  Delivered,
  Delivery,
  KeptWorkspace,
  PreparedWorkspace,
  PrepareOptions,
  TaskWorkspaces,
  WorkspaceTask,
  WorktreeBase,
  WorktreeStart,
} from "./types.js";

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

/**
 * The git worktrees of one plan's local run; see {@link openWorkspaces}. A fresh worktree starts from
 * the integration branch's tip, which holds every DONE dependency's work, and DONE work is merged into
 * it. Every method may throw ConfigurationError when git fails.
 */
export type Workspaces = TaskWorkspaces & {
  readonly integrationBranch: string;
  /** The commit HEAD was at when the workspaces were opened. */
  readonly startCommit: string;
  /** The branch checked out then; `undefined` for a detached HEAD. */
  readonly userBranch: string | undefined;
  /** True when the integration branch existed already (a resumed run builds on it). */
  readonly resumed: boolean;
  /** Merges the task's branch into the integration branch, one task at a time (see `integrateBranch`). */
  integrate(task: WorkspaceTask, options?: IntegrateOptions): Promise<IntegrationResult>;
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
  const git = gitRunner(options.env, { hooks: false });
  const top = await gitTopLevel(git, options.repoDir);
  if (top === undefined) {
    throw new ConfigurationError(`${options.repoDir} is not inside a git repository`, {
      hint: "run whilly in a git repository for a worktree per task, or run tasks in place one at a time",
    });
  }
  const start = await startCommit(git, top);
  const userBranch = await currentBranch(git, top);
  const integration = options.branch ?? `whilly/${slugOf(options.planId)}`;
  await checkIntegrationBranch(git, top, integration, userBranch);
  await excludeWhillyDir(git, top);
  const root = worktreesRoot(top, options.planId);
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
  const integrate = (task: WorkspaceTask, integrateOptions: IntegrateOptions = {}) =>
    crossProcess(() =>
      integrateBranch(
        { git, top, dir: integrationDir, integration, commitArgs: commit },
        task,
        trees.keptPaths(task).branch,
        integrateOptions,
      ),
    );
  // whilly's recorded tip, not the branch: one moved behind whilly's back holds no DONE work for sure.
  const base = async () => {
    const tip = (await recordedTip(git, top, integration)) ?? (await branchTip(git, top, integration));
    if (tip === undefined) throw new ConfigurationError(`the integration branch ${integration} is gone`);
    return { commit: tip, merges: [] };
  };
  const delivery: Delivery = {
    phase: "merge",
    deliver: async (task, _work, integrateOptions) => {
      const merged = await integrate(task, integrateOptions);
      return merged.ok ? { ok: true, detail: { integration_commit: merged.commit } } : merged;
    },
  };
  const trees = taskWorkspaces(
    { git, top, planId: options.planId, commitArgs: commit, maxFileBytes: options.maxFileBytes, admin },
    base,
    delivery,
  );

  return {
    ...trees,
    integrationBranch: integration,
    startCommit: start,
    userBranch,
    resumed,
    integrate,
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
