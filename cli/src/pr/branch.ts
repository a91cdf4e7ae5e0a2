import type { GitRunner } from "@whilly/agent";
import { ConfigurationError, InvalidInput, outputTail, TransportError } from "@whilly/core";
import { verifiedRef } from "../integrate/checks.js";
import type { QueuedTask } from "../integrate/order.js";

/** The clone, the integration branch and the remote `plan pr` pushes it to. */
export type PrBranch = {
  readonly git: GitRunner;
  readonly top: string;
  readonly branch: string;
  readonly remote: string;
  readonly planId: string;
};

/**
 * Checks the integration branch holds every DONE task's work (`git merge-base --is-ancestor` of each
 * recorded commit) and, when the plan has a `verify`, that the tip is the one `plan integrate` last
 * verified, so a pull request never shows a branch that lacks work or failed its checks.
 * @returns the branch's tip.
 * @throws InvalidInput (field `branch`) naming what is missing and pointing to `whilly plan integrate`.
 */
export async function checkBranch(
  at: PrBranch,
  done: readonly QueuedTask[],
  verifies: boolean,
): Promise<string> {
  const { git, top, branch, planId } = at;
  const integrate = `whilly plan integrate ${planId}`;
  const tip = await commitOf(git, top, `refs/heads/${branch}`);
  if (tip === undefined) {
    throw new InvalidInput("branch", `the integration branch ${branch} does not exist in ${top}`, {
      hint: `run ${integrate} first (it merges the DONE tasks' work into ${branch}); or, if it was made in another clone and pushed, fetch it: git fetch ${at.remote} ${branch}:${branch}`,
    });
  }
  const noWork = done.filter((t) => t.work === undefined).map((t) => t.id);
  if (noWork.length > 0) {
    throw new InvalidInput(
      "branch",
      `task ${noWork.join(", ")} is DONE but no branch and commit of its work were recorded, so ${branch} cannot be shown to hold it`,
      {
        hint: "run the task again with a worker that pushes its work (whilly-worker --push), then whilly plan integrate",
      },
    );
  }
  const missing: string[] = [];
  for (const task of done) {
    const commit = task.work?.commit ?? "";
    const inBranch = await git.run(top, ["merge-base", "--is-ancestor", commit, tip]);
    if (inBranch.code !== 0) missing.push(task.id);
  }
  if (missing.length > 0) {
    throw new InvalidInput("branch", `${branch} does not hold the work of task ${missing.join(", ")}`, {
      hint: `run ${integrate} to merge it, then run this again`,
    });
  }
  const verified = verifies ? await commitOf(git, top, verifiedRef(branch)) : undefined;
  if (verified !== undefined && verified !== tip) {
    throw new InvalidInput(
      "branch",
      `the plan's verify has not passed on ${branch}'s tip ${tip.slice(0, 12)} (it last passed on ${verified.slice(0, 12)})`,
      { hint: `run ${integrate}: it verifies the tip before reporting the branch integrated` },
    );
  }
  return tip;
}

/**
 * Pushes the branch to the remote under its own name, never forced (a remote branch that went
 * elsewhere is the user's to reconcile), and never any other branch.
 * @throws ConfigurationError when the clone has no such remote; TransportError when git refused.
 */
export async function pushBranch(at: PrBranch): Promise<void> {
  const { git, top, remote, branch } = at;
  if ((await git.run(top, ["remote", "get-url", remote])).code !== 0) {
    throw new ConfigurationError(`the clone at ${top} has no remote '${remote}' to push ${branch} to`, {
      hint: "git remote -v lists its remotes: name one with --remote NAME",
    });
  }
  const ref = `refs/heads/${branch}`;
  const push = await git.run(top, ["push", "-q", remote, `${ref}:${ref}`], undefined, { timeoutMs: 300_000 });
  if (push.code === 0) return;
  throw new TransportError(
    `git push of ${branch} to ${remote} failed (exit ${push.code}): ${outputTail(push.stderr.trim(), 600)}`,
    undefined,
    {
      retryable: false,
      hint: `if ${remote}'s ${branch} has commits this clone lacks, fetch it (git fetch ${remote} ${branch}) and reconcile; then run again`,
    },
  );
}

async function commitOf(git: GitRunner, top: string, ref: string): Promise<string | undefined> {
  const found = await git.run(top, ["rev-parse", "-q", "--verify", `${ref}^{commit}`]);
  return found.code === 0 ? found.stdout.trim() : undefined;
}
