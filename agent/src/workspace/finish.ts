import type { GitRunner } from "./git.js";

/**
 * How a run's work reached the user: their branch was fast-forwarded to the integration branch, or it
 * was left alone and `command` (run in the repository) takes the work; `command` is `undefined` when
 * the branch already holds all of it. `why` says, in words, why nothing was fast-forwarded.
 * `userTreeChanged` lists the paths of the user's own working tree (relative to the repository, sorted)
 * whose `git status` entry or content changed during the run, before any fast-forward: something (an
 * agent, a check, the user) wrote outside the worktrees. Gitignored paths are not seen.
 */
export type FinishResult = (
  | { readonly fastForwarded: true; readonly branch: string; readonly commit: string }
  | { readonly fastForwarded: false; readonly command: string | undefined; readonly why: string }
) & { readonly userTreeChanged: readonly string[] };

/** {@link FinishResult} without `userTreeChanged`, which the caller adds. */
export type TakeWorkResult =
  | { readonly fastForwarded: true; readonly branch: string; readonly commit: string }
  | { readonly fastForwarded: false; readonly command: string | undefined; readonly why: string };

/** What {@link takeWork} needs to know of the run. */
export type FinishTarget = {
  readonly git: GitRunner;
  readonly top: string;
  readonly integration: string;
  /** The commit HEAD was at when the run started. */
  readonly start: string;
  /** The branch checked out when the run started; `undefined` for a detached HEAD. */
  readonly userBranch: string | undefined;
};

/**
 * Fast-forwards the user's branch to the integration branch when it is still checked out at the
 * repository's top, the working tree is clean (`.whilly/` aside) and HEAD is still the start commit;
 * otherwise touches nothing and returns the one git command that takes the work.
 * @throws ConfigurationError when git fails reading the repository.
 */
export async function takeWork(target: FinishTarget): Promise<TakeWorkResult> {
  const { git, top, integration } = target;
  const tip = (await git.ok(top, ["rev-parse", "--verify", `refs/heads/${integration}^{commit}`])).trim();
  const head = (await git.ok(top, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  if ((await git.run(top, ["merge-base", "--is-ancestor", tip, head])).code === 0) {
    return { fastForwarded: false, command: undefined, why: "HEAD already holds every commit of the plan" };
  }
  const headIsBase = (await git.run(top, ["merge-base", "--is-ancestor", head, tip])).code === 0;
  const command = headIsBase ? `git merge --ff-only ${integration}` : `git merge ${integration}`;
  const why = await whyNotFastForward(target, head);
  if (why !== undefined) return { fastForwarded: false, command, why };
  const merged = await git.run(top, ["merge", "--ff-only", "-q", `refs/heads/${integration}`]);
  if (merged.code !== 0) {
    return { fastForwarded: false, command, why: `git merge --ff-only failed: ${merged.stderr.trim()}` };
  }
  return { fastForwarded: true, branch: target.userBranch ?? "", commit: tip };
}

async function whyNotFastForward(target: FinishTarget, head: string): Promise<string | undefined> {
  const { git, top, userBranch } = target;
  if (userBranch === undefined) return "HEAD was detached when the run started";
  const current = await git.run(top, ["symbolic-ref", "-q", "HEAD"]);
  if (current.code !== 0 || current.stdout.trim() !== `refs/heads/${userBranch}`) {
    return `${userBranch} is no longer checked out in ${top}`;
  }
  if (head !== target.start) return `${userBranch} moved since the run started`;
  // Untracked files (a plan file not yet committed) are no changes: git refuses the fast-forward itself
  // if one would be overwritten.
  const status = await git.ok(top, ["status", "--porcelain", "-z", "--untracked-files=no"]);
  const dirty = status.split("\0").filter((entry) => entry !== "" && !/^.. \.whilly(\/|$)/.test(entry));
  if (dirty.length > 0) return `the working tree in ${top} has uncommitted changes`;
  return undefined;
}
