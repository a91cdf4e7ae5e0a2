import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { type GitRunner, gitFailed, gitRunner } from "./git.js";

/** The identity whilly commits with when the repository names none (`git config user.name/email`). */
export const WHILLY_GIT_IDENTITY = { name: "whilly", email: "whilly@localhost" } as const;

/**
 * The top of the git working tree holding `dir`, or `undefined` when `dir` is not inside one (then
 * whilly runs tasks in place).
 */
export async function gitTopLevel(git: GitRunner, dir: string): Promise<string | undefined> {
  const result = await git.run(dir, ["rev-parse", "--show-toplevel"]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/**
 * The top of the git repository holding `dir`, or `undefined` outside git (then tasks run in place).
 * `env` is git's environment (the entry point's, e.g. the CLI's `io.env`).
 */
export function findRepository(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  return gitTopLevel(gitRunner(env), dir);
}

/** The commit HEAD points at; refuses a repository with no commit, where no worktree can start. */
export async function startCommit(git: GitRunner, top: string): Promise<string> {
  const result = await git.run(top, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (result.code === 0) return result.stdout.trim();
  throw new ConfigurationError(
    `the git repository at ${top} has no commit yet: each task's worktree starts from a commit`,
    { hint: "make a first commit: git commit --allow-empty -m init" },
  );
}

/** The branch checked out at `top` (`main`), or `undefined` when HEAD is detached. */
export async function currentBranch(git: GitRunner, top: string): Promise<string | undefined> {
  const result = await git.run(top, ["symbolic-ref", "-q", "--short", "HEAD"]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** The commit a branch points at, or `undefined` when it does not exist. */
export async function branchTip(git: GitRunner, top: string, branch: string): Promise<string | undefined> {
  const result = await git.run(top, ["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/**
 * Refuses a `--branch` value that is no plain branch name of its own (`git check-ref-format --branch`,
 * and no `@`, `-x`, `refs/heads/x` or `whilly-tasks/...`), or a branch checked out in any worktree of
 * the repository (`git worktree list --porcelain`).
 * @throws ConfigurationError naming `--branch` and the fix.
 */
export async function checkIntegrationBranch(
  git: GitRunner,
  top: string,
  branch: string,
  userBranch: string | undefined,
): Promise<void> {
  const refuse = (why: string, hint: string) =>
    new ConfigurationError(`--branch '${branch}' ${why}`, { hint });
  if (branch.startsWith("refs/")) {
    const short = branch.replace(/^refs\/heads\//, "");
    throw refuse(
      `names the ref, not the branch (--branch ${short})`,
      `give the branch's short name: --branch ${short}`,
    );
  }
  if (branch === "whilly-tasks" || branch.startsWith("whilly-tasks/")) {
    throw refuse(
      "is under whilly-tasks/, where whilly keeps each task's own branch",
      "name a branch outside whilly-tasks/, e.g. --branch whilly/my-plan",
    );
  }
  // `@` and `@{-1}` are shorthands check-ref-format --branch would expand to another branch, and it
  // takes `-x`; none of them names a branch of the plan's own.
  const valid = await git.run(top, ["check-ref-format", "--branch", branch]);
  if (
    valid.code !== 0 ||
    branch.startsWith("-") ||
    branch.startsWith("@") ||
    branch.includes("@{") ||
    valid.stdout.trim() !== branch
  ) {
    throw refuse(
      "is not a valid git branch name",
      "use letters, digits, '/', '-', '_' and '.', e.g. --branch whilly/my-plan",
    );
  }
  if (branch === userBranch) {
    throw refuse(
      `is the branch checked out here (${top})`,
      "name a branch of its own for the plan's work (whilly fast-forwards yours at the end), or leave --branch out",
    );
  }
  const path = await checkedOutIn(git, top, branch);
  if (path !== undefined) {
    throw refuse(
      `is checked out in the worktree ${path}`,
      `switch that worktree to another branch (git -C ${path} switch --detach), or name another --branch`,
    );
  }
}

/** The worktree of the repository `branch` is checked out in (`git worktree list`), or `undefined`. */
export async function checkedOutIn(git: GitRunner, top: string, branch: string): Promise<string | undefined> {
  const listed = await git.ok(top, ["worktree", "list", "--porcelain", "-z"]);
  let path = "";
  for (const line of listed.split("\0")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

/**
 * {@link checkIntegrationBranch} for a caller that has no git runner yet: `whilly run` checks `--branch`
 * with it before the store is opened, so a bad name stores no plan.
 * @param env git's environment.
 * @throws ConfigurationError naming `--branch` and the fix.
 */
export async function checkBranchOption(
  repoDir: string,
  branch: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const git = gitRunner(env);
  await checkIntegrationBranch(git, repoDir, branch, await currentBranch(git, repoDir));
}

/**
 * The git arguments that give commits an identity when the repository has none configured: whilly's own
 * ({@link WHILLY_GIT_IDENTITY}) for whichever of `user.name` and `user.email` is unset. Also turns off
 * automatic garbage collection, which would race the other worktrees' commits.
 */
export async function commitArgs(git: GitRunner, top: string): Promise<string[]> {
  const args = ["-c", "gc.auto=0"];
  if ((await git.run(top, ["config", "user.name"])).code !== 0) {
    args.push("-c", `user.name=${WHILLY_GIT_IDENTITY.name}`);
  }
  if ((await git.run(top, ["config", "user.email"])).code !== 0) {
    args.push("-c", `user.email=${WHILLY_GIT_IDENTITY.email}`);
  }
  return args;
}

/**
 * Keeps `.whilly/` (the worktrees, the embedded store) out of git through `info/exclude`, never the
 * user's `.gitignore`, so worktrees never show in `git status`.
 */
export async function excludeWhillyDir(git: GitRunner, top: string): Promise<void> {
  const out = (await git.ok(top, ["rev-parse", "--git-common-dir"])).trim();
  const common = isAbsolute(out) ? out : resolve(top, out);
  const exclude = join(common, "info", "exclude");
  const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
  if (current.split(/\r?\n/).some((line) => line.trim() === "/.whilly/" || line.trim() === ".whilly/"))
    return;
  await mkdir(join(common, "info"), { recursive: true });
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  await appendFile(exclude, `${separator}# whilly's worktrees and embedded store\n/.whilly/\n`);
}

/**
 * True when `dir` is the top of a worktree of this repository whose HEAD is as `head` says: `detached`,
 * or `any` (whatever the agent checked out).
 */
export async function isWorktreeAt(git: GitRunner, dir: string, head: "detached" | "any"): Promise<boolean> {
  if (!existsSync(dir)) return false;
  const top = await git.run(dir, ["rev-parse", "--show-toplevel"]);
  if (top.code !== 0 || !samePath(top.stdout.trim(), dir)) return false;
  if (head === "any") return true;
  return (await git.run(dir, ["symbolic-ref", "-q", "HEAD"])).code !== 0;
}

/** Removes the worktree at `dir` (its branch stays) and whatever is left of the directory. */
export async function dropWorktree(git: GitRunner, top: string, dir: string): Promise<void> {
  if (existsSync(dir)) {
    await git.run(top, ["worktree", "remove", "--force", "--force", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
  const pruned = await git.run(top, ["worktree", "prune"]);
  if (pruned.code !== 0) throw gitFailed(["worktree", "prune"], pruned);
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
