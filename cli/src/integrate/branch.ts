import { branchTip, DEFAULT_NETWORK_TIMEOUT_MS, markPlan } from "@whilly/agent";
import { outputTail } from "@whilly/core";
import { verifiedRef } from "./checks.js";
import type { IntegrationTarget } from "./target.js";
import { closeWorktree } from "./worktree.js";

/**
 * The integration branch on the remote: `none` when the clone has no such remote or the remote no
 * such branch; `found` once fetched into `refs/remotes/<remote>/<branch>` (`ref` is its short name).
 */
export type RemoteBranch =
  | { readonly kind: "none" }
  | { readonly kind: "unreachable"; readonly message: string; readonly outputTail: string }
  | { readonly kind: "found"; readonly ref: string; readonly tip: string };

/** Looks the integration branch up on the remote (`git ls-remote`) and fetches it when it is there. */
export async function lookUpRemoteBranch(target: IntegrationTarget): Promise<RemoteBranch> {
  const { git, top, remote, branch } = target;
  if ((await git.run(top, ["remote", "get-url", remote])).code !== 0) return { kind: "none" };
  const net = { timeoutMs: DEFAULT_NETWORK_TIMEOUT_MS };
  const head = `refs/heads/${branch}`;
  const listed = await git.run(top, ["ls-remote", "--exit-code", remote, head], undefined, net);
  // Exit 2: the remote answered, and has no such branch.
  if (listed.code === 2) return { kind: "none" };
  const tracking = `refs/remotes/${remote}/${branch}`;
  const fetched =
    listed.code === 0
      ? await git.run(top, ["fetch", "-q", "--no-tags", remote, `+${head}:${tracking}`], undefined, net)
      : listed;
  if (fetched.code !== 0) {
    return {
      kind: "unreachable",
      message: `could not look up ${branch} on ${remote} (git exit ${fetched.code})`,
      outputTail: outputTail(fetched.stderr.trim()),
    };
  }
  const tip = await git.ok(top, ["rev-parse", `${tracking}^{commit}`]);
  return { kind: "found", ref: `${remote}/${branch}`, tip: tip.trim() };
}

/** Where the integration branch stands at the start of a run. */
export type BranchStart = {
  readonly tip: string;
  /** Set when this run made the branch: `HEAD`, or the remote's branch it was made from. */
  readonly createdFrom: string | undefined;
  /** The remote's branch the local one was fast-forwarded to, being behind it. */
  readonly fastForwarded: string | undefined;
};

/**
 * The integration branch, made when missing from the remote's branch if there is one, else from the
 * clone's HEAD, and marked as the plan's (`branch.<name>.whillyPlan`, so a later `whilly run` of the
 * plan may build on it); an existing branch behind the remote's is fast-forwarded to it. The remote's
 * tip counts as verified: integrate pushes only a branch whose checks passed.
 */
export async function startBranch(
  target: IntegrationTarget,
  planId: string,
  remote: RemoteBranch,
  worktreeOpen: boolean,
): Promise<BranchStart> {
  const { git, top, branch } = target;
  const found = remote.kind === "found" ? remote : undefined;
  const local = await branchTip(git, top, branch);
  if (local === undefined) {
    await git.ok(top, ["branch", "--no-track", branch, found?.tip ?? "HEAD"]);
    await markPlan(git, top, branch, planId);
    const made = await branchTip(git, top, branch);
    if (made === undefined) throw new Error(`git branch ${branch} made no branch`);
    await git.ok(top, ["update-ref", verifiedRef(branch), made]);
    return { tip: made, createdFrom: found?.ref ?? "HEAD", fastForwarded: undefined };
  }
  if (found === undefined || found.tip === local || !(await isAncestor(target, local, found.tip)))
    return { tip: local, createdFrom: undefined, fastForwarded: undefined };
  if (worktreeOpen) await git.ok(target.dir, ["merge", "-q", "--ff-only", found.tip]);
  else await git.ok(top, ["update-ref", `refs/heads/${branch}`, found.tip, local]);
  await git.ok(top, ["update-ref", verifiedRef(branch), found.tip]);
  return { tip: found.tip, createdFrom: undefined, fastForwarded: found.ref };
}

/** How many commits of the remote's branch the integration branch does not hold (0 with none there). */
export async function onlyOnRemote(target: IntegrationTarget, remote: RemoteBranch): Promise<number> {
  if (remote.kind !== "found") return 0;
  const range = `refs/heads/${target.branch}..${remote.tip}`;
  const counted = await target.git.run(target.top, ["rev-list", "--count", range]);
  return counted.code === 0 ? Number(counted.stdout.trim()) : 0;
}

/** Removes what a run made and merged nothing into: the worktree, the branch (its mark with it) and its verified ref. */
export async function dropBranch(target: IntegrationTarget): Promise<void> {
  const { git, top, branch } = target;
  await closeWorktree(target);
  await git.ok(top, ["branch", "-q", "-D", branch]);
  await git.run(top, ["update-ref", "-d", verifiedRef(branch)]);
}

async function isAncestor(target: IntegrationTarget, commit: string, of: string): Promise<boolean> {
  return (await target.git.run(target.top, ["merge-base", "--is-ancestor", commit, of])).code === 0;
}
