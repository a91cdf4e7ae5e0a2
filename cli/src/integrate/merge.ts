import { outputTail } from "@whilly/core";
import type { IntegrationTarget } from "./target.js";

/** How merging one task's commit went. */
export type MergeResult =
  | { readonly kind: "merged"; readonly commit: string }
  /** Left in progress in the worktree for the user to resolve: the paths still unmerged. */
  | { readonly kind: "conflict"; readonly files: readonly string[] }
  /** git refused before merging (e.g. an untracked file in the way): nothing is left in progress. */
  | { readonly kind: "failed"; readonly exit_code: number; readonly output_tail: string };

/** True when the integration branch already holds `commit` (`git merge-base --is-ancestor`). */
export async function isMerged(target: IntegrationTarget, commit: string): Promise<boolean> {
  const { git, top, branch } = target;
  return (await git.run(top, ["merge-base", "--is-ancestor", commit, `refs/heads/${branch}`])).code === 0;
}

/**
 * Merges a task's commit into the branch checked out in the integration worktree, always as a merge
 * commit (`--no-ff`) naming the task, so `git log --first-parent` lists one merge per task. A conflict
 * is left in progress, as `git merge` leaves it.
 */
export async function mergeCommit(
  target: IntegrationTarget,
  task: { readonly planId: string; readonly id: string },
  commit: string,
): Promise<MergeResult> {
  const { git, dir } = target;
  const message = `whilly: merge ${task.id} (plan ${task.planId})`;
  const merge = await git.run(dir, [
    ...target.commitArgs,
    "merge",
    "--no-ff",
    "--no-edit",
    "-m",
    message,
    commit,
  ]);
  if (merge.code === 0) return { kind: "merged", commit: (await git.ok(dir, ["rev-parse", "HEAD"])).trim() };
  const unmerged = await git.run(dir, ["diff", "--name-only", "--diff-filter=U", "-z"]);
  const files = unmerged.stdout.split("\0").filter((file) => file !== "");
  const inProgress = (await git.run(dir, ["rev-parse", "-q", "--verify", "MERGE_HEAD"])).code === 0;
  if (inProgress && files.length > 0) return { kind: "conflict", files };
  if (inProgress) await git.run(dir, ["merge", "--abort"]);
  return {
    kind: "failed",
    exit_code: merge.code,
    output_tail: outputTail(`${merge.stdout}${merge.stderr}`.trim()),
  };
}
