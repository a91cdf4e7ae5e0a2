import { outputTail } from "@whilly/core";
import { pushStop } from "./git-stops.js";
import type { Stop, StopContext } from "./stops.js";
import type { IntegrationTarget } from "./target.js";

/**
 * Pushes the integration branch to the remote under its own name (never forced: a branch on the remote
 * that went elsewhere is the user's to reconcile); a {@link Stop} when git refused.
 */
export async function pushBranch(target: IntegrationTarget, at: StopContext): Promise<Stop | undefined> {
  const { git, top, remote, branch } = target;
  const ref = `refs/heads/${branch}`;
  const push = await git.run(top, ["push", "-q", remote, `${ref}:${ref}`]);
  if (push.code === 0) return undefined;
  return pushStop(at, push.code, outputTail(push.stderr.trim()));
}
