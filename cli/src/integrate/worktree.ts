import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { dropWorktree, excludeWhillyDir, isWorktreeAt } from "@whilly/agent";
import type { IntegrationTarget } from "./target.js";

/**
 * What a previous run (or the user) left in the integration worktree: nothing, a clean tree, a merge
 * in progress (its `MERGE_HEAD` and the files still unmerged), uncommitted changes to tracked files,
 * or the worktree switched to another branch.
 */
export type WorktreeState =
  | { readonly kind: "absent" }
  | { readonly kind: "clean" }
  | { readonly kind: "merging"; readonly mergeHead: string; readonly files: readonly string[] }
  | { readonly kind: "dirty"; readonly files: readonly string[] }
  | { readonly kind: "other_branch"; readonly head: string };

/** Reads the integration worktree's state; see {@link WorktreeState}. */
export async function worktreeState(target: IntegrationTarget): Promise<WorktreeState> {
  const { git, dir } = target;
  if (!(await isWorktreeAt(git, dir, "any"))) return { kind: "absent" };
  const head = await git.run(dir, ["symbolic-ref", "-q", "HEAD"]);
  if (head.stdout.trim() !== `refs/heads/${target.branch}`) {
    return {
      kind: "other_branch",
      head: head.stdout.trim().replace(/^refs\/heads\//, "") || "detached HEAD",
    };
  }
  const merging = await git.run(dir, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]);
  if (merging.code === 0) {
    const files = await listed(target, ["diff", "--name-only", "--diff-filter=U", "-z"]);
    return { kind: "merging", mergeHead: merging.stdout.trim(), files };
  }
  const changed = await listed(target, ["diff", "--name-only", "-z", "HEAD"]);
  if (changed.length > 0) return { kind: "dirty", files: changed };
  return { kind: "clean" };
}

/**
 * The integration worktree with the branch checked out: the one a previous run left, or a new one
 * (`fresh`, which the plan's setup has yet to prepare). `.whilly/` is kept out of git's status.
 * @throws ConfigurationError when git cannot add the worktree.
 */
export async function openWorktree(target: IntegrationTarget): Promise<{ readonly fresh: boolean }> {
  const { git, top, dir } = target;
  if (await isWorktreeAt(git, dir, "any")) return { fresh: false };
  await dropWorktree(git, top, dir);
  await excludeWhillyDir(git, top);
  await mkdir(dirname(dir), { recursive: true });
  await git.ok(top, ["worktree", "add", "-q", dir, target.branch]);
  return { fresh: true };
}

/** The file, in the worktree's own git directory, saying the plan's setup ran to its end there. */
const SETUP_DONE = "whilly-integrate-setup-done";

async function setupMarker(target: IntegrationTarget): Promise<string> {
  return join((await target.git.ok(target.dir, ["rev-parse", "--absolute-git-dir"])).trim(), SETUP_DONE);
}

/** True when the plan's setup ran to its end in the integration worktree (see {@link markSetupDone}). */
export async function setupDone(target: IntegrationTarget): Promise<boolean> {
  return existsSync(await setupMarker(target));
}

/** Records that the setup ran to its end: a run killed during it leaves a worktree the next run sets up. */
export async function markSetupDone(target: IntegrationTarget): Promise<void> {
  await writeFile(await setupMarker(target), "");
}

/** Removes the integration worktree (the branch stays), so the user can check the branch out. */
export function closeWorktree(target: IntegrationTarget): Promise<void> {
  return dropWorktree(target.git, target.top, target.dir);
}

async function listed(target: IntegrationTarget, args: readonly string[]): Promise<string[]> {
  return (await target.git.ok(target.dir, args)).split("\0").filter((entry) => entry !== "");
}
