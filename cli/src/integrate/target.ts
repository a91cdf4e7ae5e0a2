import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { commitArgs, type GitRunner, gitRunner, gitTopLevel, slugOf } from "@whilly/agent";
import { ConfigurationError } from "@whilly/core";
import { UsageError } from "../exit-codes.js";

/** Where `plan integrate` works: the clone, the branch it merges into and the remote it fetches from. */
export type IntegrationTarget = {
  readonly git: GitRunner;
  /** The clone's top directory. */
  readonly top: string;
  readonly branch: string;
  readonly remote: string;
  /** The worktree merges happen in, `<top>/.whilly/integrate/<branch-slug>`: never the user's own tree. */
  readonly dir: string;
  /** git's `-c` arguments giving merge commits an identity when the clone has none. */
  readonly commitArgs: readonly string[];
};

/** Options of {@link openTarget}. */
export type TargetOptions = {
  readonly repoDir: string;
  readonly branch: string;
  /** The flag that named the branch (`--into`), or `undefined` for the default name. */
  readonly branchFlag: string | undefined;
  readonly remote: string;
  readonly env: Readonly<Record<string, string | undefined>>;
};

/**
 * Checks the clone before the store is read: a git repository with a commit, and a branch name git
 * takes that is not checked out in another worktree (integrate merges in a worktree of its own).
 * @throws UsageError naming `--into` for a bad branch name.
 * @throws ConfigurationError for a directory outside git, a repository with no commit, or a branch
 *   checked out elsewhere.
 */
export async function openTarget(options: TargetOptions): Promise<IntegrationTarget> {
  if (!existsSync(options.repoDir)) {
    throw new ConfigurationError(`${options.repoDir} does not exist`, {
      hint: "pass --repo DIR, a clone of the repository the workers push to",
    });
  }
  const top = await gitTopLevel(gitRunner(options.env), options.repoDir);
  if (top === undefined) {
    throw new ConfigurationError(`${options.repoDir} is not inside a git repository`, {
      hint: "run it in a clone of the repository the workers push to, or pass --repo DIR",
    });
  }
  // Every command runs at the clone's top or in the integration worktree, never above it.
  const git = gitRunner(options.env, { climb: false });
  if ((await git.run(top, ["rev-parse", "--verify", "-q", "HEAD^{commit}"])).code !== 0) {
    throw new ConfigurationError(`the git repository at ${top} has no commit yet`, {
      hint: "the integration branch starts from HEAD: make a first commit, or fetch the branch the plan started from",
    });
  }
  if (options.branchFlag !== undefined) await checkBranchName(git, top, options.branch, options.branchFlag);
  const dir = join(top, ".whilly", "integrate", slugOf(options.branch));
  // A worktree whose directory was deleted still holds its branch until pruned.
  await git.ok(top, ["worktree", "prune"]);
  const elsewhere = await checkedOutAt(git, top, options.branch);
  if (elsewhere !== undefined && !samePath(elsewhere, dir)) {
    throw new ConfigurationError(
      `the branch ${options.branch} is checked out in ${elsewhere}: integrate merges in a worktree of its own (${dir})`,
      {
        hint: `switch that tree to another branch (git -C ${elsewhere} switch --detach), or merge into another branch with --into`,
      },
    );
  }
  return {
    git,
    top,
    branch: options.branch,
    remote: options.remote,
    dir,
    commitArgs: await commitArgs(git, top),
  };
}

/**
 * Refuses the remote when the clone has none by that name (checked when something must be fetched or
 * pushed, so a clone whose commits are all local needs none).
 * @throws ConfigurationError naming the remote and the flag.
 */
export async function requireRemote(target: IntegrationTarget, why: string): Promise<void> {
  const { git, top, remote } = target;
  if ((await git.run(top, ["remote", "get-url", remote])).code === 0) return;
  throw new ConfigurationError(`the clone at ${top} has no remote '${remote}' (${why})`, {
    hint: `git -C ${top} remote -v lists its remotes: name one with --remote NAME, or add it: git -C ${top} remote add ${remote} URL`,
  });
}

/** @throws UsageError unless `branch` is a plain branch name of its own (`git check-ref-format --branch`). */
async function checkBranchName(git: GitRunner, top: string, branch: string, flag: string): Promise<void> {
  const refuse = (why: string, hint: string) => new UsageError(`${flag} '${branch}' ${why}`, { hint });
  if (branch.startsWith("refs/")) {
    const short = branch.replace(/^refs\/heads\//, "");
    throw refuse("names a ref, not a branch", `give the branch's short name: ${flag} ${short}`);
  }
  if (branch === "whilly-tasks" || branch.startsWith("whilly-tasks/")) {
    throw refuse(
      "is under whilly-tasks/, where each task's own branch is",
      `name a branch outside whilly-tasks/, e.g. ${flag} whilly/my-plan`,
    );
  }
  // `@`, `@{-1}` and `-x` are shorthands or options to git, never a branch of the plan's own.
  const valid = await git.run(top, ["check-ref-format", "--branch", branch]);
  if (
    valid.code !== 0 ||
    valid.stdout.trim() !== branch ||
    branch.startsWith("-") ||
    branch.startsWith("@") ||
    branch.includes("@{")
  ) {
    throw refuse(
      "is not a valid git branch name",
      `use letters, digits, '/', '-', '_' and '.', e.g. ${flag} whilly/my-plan`,
    );
  }
}

/** The worktree `branch` is checked out in, or `undefined` when none has it. */
async function checkedOutAt(git: GitRunner, top: string, branch: string): Promise<string | undefined> {
  const listed = await git.ok(top, ["worktree", "list", "--porcelain", "-z"]);
  let path = "";
  for (const line of listed.split("\0")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
