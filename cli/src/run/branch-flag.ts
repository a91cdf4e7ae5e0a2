import { gitRunner } from "@whilly/agent";
import { UsageError } from "../exit-codes.js";

const EXAMPLE = "e.g. --branch whilly/my-plan";

/**
 * Refuses a `--branch` the run could not use as its integration branch, before the store is opened, so
 * a bad name stores no plan: a name git cannot hold as a branch (`git check-ref-format --branch`), one
 * that starts with `-` or `@`, a ref given literally (`refs/heads/…`), one under `whilly-tasks/` (where
 * each task's own branch lives, docs/worktrees.md), or the branch checked out in `repoDir`.
 * @param env the environment git runs with.
 * @throws {UsageError} naming the flag, the value and the fix.
 */
export async function checkBranchFlag(
  branch: string,
  repoDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const refuse = (why: string, hint: string) => new UsageError(`--branch '${branch}' ${why}`, { hint });
  if (branch.startsWith("refs/heads/")) {
    throw refuse("names the ref, not the branch", `give the branch's name: --branch ${branch.slice(11)}`);
  }
  if (branch.startsWith("whilly-tasks/")) {
    throw refuse("is under whilly-tasks/, where whilly keeps each task's branch", `name another, ${EXAMPLE}`);
  }
  const git = gitRunner(env);
  const valid = await git.run(repoDir, ["check-ref-format", "--branch", branch]);
  // check-ref-format --branch expands `@{-1}` and takes `-x`; neither names a branch of the plan's own.
  if (
    valid.code !== 0 ||
    valid.stdout.trim() !== branch ||
    branch.startsWith("-") ||
    branch.startsWith("@")
  ) {
    throw refuse("is not a valid git branch name", `use letters, digits, '/', '-', '_' and '.', ${EXAMPLE}`);
  }
  const head = await git.run(repoDir, ["symbolic-ref", "-q", "--short", "HEAD"]);
  if (head.code === 0 && head.stdout.trim() === branch) {
    throw refuse(
      `is the branch checked out here (${repoDir})`,
      "name a branch of its own for the plan's work (whilly fast-forwards yours at the end), or leave --branch out",
    );
  }
}
