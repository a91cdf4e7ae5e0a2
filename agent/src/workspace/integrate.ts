import { rmSync } from "node:fs";
import { join } from "node:path";
import { outputTail } from "@whilly/core";
import type { GitRunner } from "./git.js";
import { recordSetupPaths, setupPaths } from "./leftovers.js";
import { branchTip, dropWorktree, isWorktreeAt } from "./repo.js";
import { movedBranchMessage, recordedTip, recordTip, tipRef } from "./tip.js";

/** A failed step on the integration worktree: a setup or verify command, or a git command. */
export type IntegrationStepFailure = {
  readonly step: string;
  readonly exit_code: number | null;
  readonly output_tail: string;
};

/** Options of `Workspaces.integrate`. */
export type IntegrateOptions = {
  /**
   * Runs the plan's `verify` commands on the merged tree in `dir`; `undefined` when they passed (or there
   * are none). Not called when the merge changed nothing.
   */
  readonly check?: ((dir: string) => Promise<IntegrationStepFailure | undefined>) | undefined;
  /** Prepares a newly made integration worktree (the plan's setup command); `undefined` when it worked. */
  readonly setup?: ((dir: string) => Promise<IntegrationStepFailure | undefined>) | undefined;
  /** Stops a push (the worker is stopping): it fails at once. */
  readonly signal?: AbortSignal | undefined;
};

/** How merging a task's branch into the integration branch went. */
export type IntegrationResult =
  | {
      readonly ok: true;
      /** The integration branch's tip now. */
      readonly commit: string;
      /** False when the task's branch held nothing the integration branch lacked. */
      readonly merged: boolean;
    }
  | {
      readonly ok: false;
      readonly reason: "merge_conflict";
      /** The conflicting paths, relative to the repository. */
      readonly files: readonly string[];
    }
  | ({ readonly ok: false; readonly reason: "integration_failed" } & IntegrationStepFailure);

/** What {@link integrateBranch} needs of the repository. */
export type IntegrationTarget = {
  readonly git: GitRunner;
  readonly top: string;
  /** The detached worktree merges happen in. */
  readonly dir: string;
  readonly integration: string;
  readonly commitArgs: readonly string[];
};

/**
 * Merges `branch` into the integration branch (`git merge --no-ff`) in the detached integration
 * worktree, runs `check` on the result, and moves the branch (`git update-ref <new> <old>`) only when
 * both worked; otherwise the worktree goes back to the pre-merge commit and the branch never moved.
 * The merge builds on whilly's recorded tip (`refs/whilly/tips/<branch>`, see `tipRef`), which another
 * whilly process's merge moves too; a branch that no longer points there was moved outside whilly and
 * is refused (`integration_failed`, step `check integration branch`), never merged onto.
 * The caller serializes calls, across processes too.
 * @throws ConfigurationError when git fails outside the merge itself.
 */
export async function integrateBranch(
  target: IntegrationTarget,
  task: { readonly id: string },
  branch: string,
  options: IntegrateOptions,
): Promise<IntegrationResult> {
  const { git, dir } = target;
  const current = await branchTip(git, target.top, target.integration);
  if (current === undefined) {
    const step = "check integration branch";
    return {
      ok: false,
      reason: "integration_failed",
      step,
      exit_code: null,
      output_tail: `the integration branch ${target.integration} is gone`,
    };
  }
  let before = await recordedTip(git, target.top, target.integration);
  if (before === undefined) {
    await recordTip(git, target.top, target.integration, current);
    before = current;
  }
  if (current !== before) {
    const output_tail = movedBranchMessage(target.integration, current, before);
    return {
      ok: false,
      reason: "integration_failed",
      step: "check integration branch",
      exit_code: null,
      output_tail,
    };
  }
  const made = await openIntegrationWorktree(target, before, options);
  if (made !== undefined) return { ok: false, reason: "integration_failed", ...made };
  await git.ok(dir, ["reset", "-q", "--hard", before]);
  // What the setup command made stays; what earlier checks left would get in the merge's way.
  const kept = (await setupPaths(git, dir)).flatMap((path) => ["-e", `/${path}`]);
  await git.ok(dir, ["clean", "-fdq", ...kept]);
  await dropUntrackedTheMergeBrings(git, dir, branch);

  const merge = await git.run(dir, [
    ...target.commitArgs,
    "merge",
    "--no-ff",
    "--no-edit",
    "-m",
    `whilly: merge ${task.id}`,
    `refs/heads/${branch}`,
  ]);
  if (merge.code !== 0) {
    const conflicted = await git.run(dir, ["diff", "--name-only", "--diff-filter=U", "-z"]);
    const files = conflicted.stdout.split("\0").filter((f) => f !== "");
    if ((await git.run(dir, ["merge", "--abort"])).code !== 0)
      await git.run(dir, ["reset", "-q", "--hard", before]);
    if (files.length > 0) return { ok: false, reason: "merge_conflict", files };
    return {
      ok: false,
      reason: "integration_failed",
      step: `git merge ${branch}`,
      exit_code: merge.code,
      output_tail: outputTail(`${merge.stdout}${merge.stderr}`),
    };
  }
  const after = (await git.ok(dir, ["rev-parse", "HEAD"])).trim();
  if (after === before) return { ok: true, commit: before, merged: false };

  const failed = await options.check?.(dir);
  if (failed !== undefined) {
    await git.ok(dir, ["reset", "-q", "--hard", before]);
    return { ok: false, reason: "integration_failed", ...failed };
  }
  const moved = await git.run(target.top, ["update-ref", `refs/heads/${target.integration}`, after, before]);
  if (moved.code !== 0) {
    await git.ok(dir, ["reset", "-q", "--hard", before]);
    return {
      ok: false,
      reason: "integration_failed",
      step: `git update-ref refs/heads/${target.integration}`,
      exit_code: moved.code,
      output_tail: outputTail(
        `the integration branch moved while merging (outside whilly's lock): ${moved.stderr}`,
      ),
    };
  }
  const recorded = await git.run(target.top, ["update-ref", tipRef(target.integration), after, before]);
  if (recorded.code !== 0) {
    return {
      ok: false,
      reason: "integration_failed",
      step: `git update-ref ${tipRef(target.integration)}`,
      exit_code: recorded.code,
      output_tail: outputTail(recorded.stderr),
    };
  }
  return { ok: true, commit: after, merged: true };
}

/**
 * Makes the detached integration worktree at `before` when it is missing and runs `setup` in it; a
 * failed setup removes it again, so the next merge sets it up anew.
 */
async function openIntegrationWorktree(
  target: IntegrationTarget,
  before: string,
  options: IntegrateOptions,
): Promise<IntegrationStepFailure | undefined> {
  if (await isWorktreeAt(target.git, target.dir, "detached")) return undefined;
  await dropWorktree(target.git, target.top, target.dir);
  await target.git.ok(target.top, ["worktree", "add", "-q", "--detach", target.dir, before]);
  const failed = await options.setup?.(target.dir);
  if (failed !== undefined) await dropWorktree(target.git, target.top, target.dir);
  else await recordSetupPaths(target.git, target.dir);
  return failed;
}

/**
 * Removes untracked files in `dir` (made by the setup command) that `branch` tracks: a task that wrote
 * its work into a file setup makes commits it, and git would refuse to merge over the untracked copy.
 */
async function dropUntrackedTheMergeBrings(git: GitRunner, dir: string, branch: string): Promise<void> {
  const untracked = (await git.ok(dir, ["ls-files", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter((p) => p !== "");
  if (untracked.length === 0) return;
  const tracked = new Set(
    (await git.ok(dir, ["ls-tree", "-r", "--name-only", "-z", `refs/heads/${branch}`])).split("\0"),
  );
  for (const path of untracked) if (tracked.has(path)) rmSync(join(dir, path), { force: true });
}
