import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DependencyConflict, WorkspaceUnavailable } from "./faults.js";
import { type GitRunner, gitFailed } from "./git.js";
import { commitLeftovers, recordSetupPaths } from "./leftovers.js";
import { createMutex } from "./mutex.js";
import { branchTip, checkedOutIn, dropWorktree, isWorktreeAt } from "./repo.js";
import { slugOf } from "./slug.js";
import type { Delivery, KeptWorkspace, TaskWorkspaces, WorkspaceTask, WorktreeBase } from "./types.js";

/** What {@link taskWorkspaces} needs of the clone. */
export type TaskTreesTarget = {
  readonly git: GitRunner;
  /** The repository's top directory. */
  readonly top: string;
  readonly planId: string;
  /** The identity fallback for commits (see `commitArgs`). */
  readonly commitArgs: readonly string[];
  /** The largest file a task's commit takes, bytes; larger ones are left out and reported. */
  readonly maxFileBytes?: number | undefined;
  /** Worktrees are added and removed one at a time; the caller's lock when it has one. */
  readonly admin?: (<T>(section: () => Promise<T>) => Promise<T>) | undefined;
};

/** Where a plan's task worktrees live in a clone: `<top>/.whilly/worktrees/<plan-slug>/`. */
export function worktreesRoot(top: string, planId: string): string {
  return join(top, ".whilly", "worktrees", slugOf(planId));
}

/**
 * The task worktrees of one plan in one clone (see {@link TaskWorkspaces}): `base` says where a fresh
 * worktree starts, `delivery` where DONE work goes. Local `whilly run` and a remote worker differ only
 * in those two.
 */
export function taskWorkspaces(
  target: TaskTreesTarget,
  base: WorktreeBase,
  delivery: Delivery,
): TaskWorkspaces {
  const { git, top } = target;
  const admin = target.admin ?? createMutex();
  const root = worktreesRoot(top, target.planId);
  const planSlug = slugOf(target.planId);
  const kept = (task: WorkspaceTask): KeptWorkspace => {
    const slug = slugOf(task.id);
    return { dir: join(root, slug), branch: `whilly-tasks/${planSlug}/${slug}` };
  };
  const isAncestor = async (dir: string, commit: string, of: string) =>
    (await git.run(dir, ["merge-base", "--is-ancestor", commit, of])).code === 0;

  return {
    repoDir: top,
    delivery,
    prepare: (task, { reuse, dependencyWork = [], signal }) =>
      admin(async () => {
        const { dir, branch } = kept(task);
        const start = await base(task, dependencyWork, signal);
        if (reuse && (await isWorktreeAt(git, dir, "any"))) {
          const held = await Promise.all(start.merges.map((m) => isAncestor(dir, m.commit, "HEAD")));
          if (held.every(Boolean))
            return { dir, branch, base: await keptBase(git, dir, start.commit), reused: true };
        }
        await dropWorktree(git, top, dir);
        await assertBranchFree(git, top, branch);
        await git.ok(top, ["worktree", "add", "-q", "-B", branch, dir, start.commit]);
        for (const dependency of start.merges) {
          const merge = await git.run(dir, [
            ...target.commitArgs,
            "merge",
            "-q",
            "--no-edit",
            "-m",
            `whilly: merge ${dependency.taskId} into the base of ${task.id}`,
            dependency.commit,
          ]);
          if (merge.code === 0) continue;
          const conflicted = await git.run(dir, ["diff", "--name-only", "--diff-filter=U", "-z"]);
          const files = conflicted.stdout.split("\0").filter((f) => f !== "");
          await dropWorktree(git, top, dir);
          if (files.length > 0) throw new DependencyConflict(dependency, files);
          throw gitFailed(["merge", dependency.commit], merge);
        }
        const head = (await git.ok(dir, ["rev-parse", "HEAD"])).trim();
        await writeFile(join(await privateGitDir(git, dir), BASE_FILE), head);
        return { dir, branch, base: head, reused: false };
      }),
    recordSetup: (dir) => recordSetupPaths(git, dir),
    commitLeftovers: async (dir, task) => {
      const result = await commitLeftovers(git, dir, target.commitArgs, task, target.maxFileBytes);
      // An agent that switched to a branch of its own (or detached HEAD) left its work there: the task's
      // branch, which is what gets delivered, follows the worktree's HEAD.
      const head = (await git.ok(dir, ["rev-parse", "HEAD"])).trim();
      const branch = kept(task).branch;
      if ((await branchTip(git, top, branch)) !== head)
        await git.ok(top, ["update-ref", `refs/heads/${branch}`, head]);
      return { ...result, work: { branch, commit: head } };
    },
    remove: (task) => admin(() => dropWorktree(git, top, kept(task).dir)),
    keptPaths: kept,
  };
}

/**
 * Refuses a task branch checked out in another tree of the clone (the user looking at a task's work):
 * the machine's state, not the task's fault, so the attempt is handed back.
 * @throws WorkspaceUnavailable naming the tree and how to free the branch.
 */
async function assertBranchFree(git: GitRunner, top: string, branch: string): Promise<void> {
  const elsewhere = await checkedOutIn(git, top, branch);
  if (elsewhere === undefined) return;
  throw new WorkspaceUnavailable(
    `the task's branch ${branch} is checked out in ${elsewhere}, so the task's worktree cannot have it`,
    {
      hint: `switch that tree to another branch (git -C ${elsewhere} switch --detach); the task's work stays on its branch`,
    },
  );
}

/** The file, in a worktree's own git directory, holding the commit it started from. */
const BASE_FILE = "whilly-base";

async function privateGitDir(git: GitRunner, dir: string): Promise<string> {
  return (await git.ok(dir, ["rev-parse", "--absolute-git-dir"])).trim();
}

/** The commit a kept worktree started from, as recorded; else where it branched off `start`. */
async function keptBase(git: GitRunner, dir: string, start: string): Promise<string> {
  const file = join(await privateGitDir(git, dir), BASE_FILE);
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  return (await git.ok(dir, ["merge-base", "HEAD", start])).trim();
}
