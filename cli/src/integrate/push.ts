import { outputTail } from "@whilly/core";
import { gitStop, type Stop } from "./stops.js";
import type { IntegrationTarget } from "./target.js";

/**
 * Pushes the integration branch to the remote under its own name (never forced: a branch on the remote
 * that went elsewhere is the user's to reconcile); a {@link Stop} when git refused.
 */
export async function pushBranch(target: IntegrationTarget): Promise<Stop | undefined> {
  const { git, top, remote, branch } = target;
  const ref = `refs/heads/${branch}`;
  const push = await git.run(top, ["push", "-q", remote, `${ref}:${ref}`]);
  if (push.code === 0) return undefined;
  return gitStop(
    "push_failed",
    undefined,
    `git push of ${branch} to ${remote} failed (exit ${push.code}); everything is merged locally`,
    outputTail(push.stderr.trim()),
    [`push it yourself once the cause is fixed: git push ${remote} ${branch}`],
  );
}
