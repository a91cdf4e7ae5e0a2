import { ConfigurationError } from "@whilly/core";
import type { GitRunner } from "./git.js";

/**
 * The ref where whilly keeps the integration branch's tip it last wrote, `refs/whilly/tips/<branch>`. A
 * merge builds on, and compare-and-swaps against, this commit, never on whatever the branch says now:
 * an agent (or anyone) that moved the branch cannot make DONE work vanish. Every whilly process on the
 * repository shares it, so one run sees the merges of another.
 */
export function tipRef(integration: string): string {
  return `refs/whilly/tips/${integration}`;
}

/** The git config key marking a branch whilly made for a plan: `branch.<name>.whillyPlan = <planId>`. */
export function planMarkKey(branch: string): string {
  return `branch.${branch}.whillyPlan`;
}

/** The commit whilly last wrote to the integration branch, or `undefined` when it recorded none. */
export async function recordedTip(
  git: GitRunner,
  top: string,
  integration: string,
): Promise<string | undefined> {
  const result = await git.run(top, ["rev-parse", "--verify", "-q", `${tipRef(integration)}^{commit}`]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Records `commit` as whilly's tip of the integration branch. */
export async function recordTip(
  git: GitRunner,
  top: string,
  integration: string,
  commit: string,
): Promise<void> {
  await git.ok(top, ["update-ref", tipRef(integration), commit]);
}

/**
 * The plan id an existing branch was marked with when whilly made it, or `undefined` when it was not
 * made by whilly.
 */
export async function planMark(git: GitRunner, top: string, branch: string): Promise<string | undefined> {
  const result = await git.run(top, ["config", "--get", planMarkKey(branch)]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Marks `branch` as the integration branch of `planId` (see {@link planMark}). */
export async function markPlan(git: GitRunner, top: string, branch: string, planId: string): Promise<void> {
  await git.ok(top, ["config", planMarkKey(branch), planId]);
}

/**
 * The words and the fix for an integration branch moved behind whilly's back: `tip` is where it is now,
 * `recorded` what whilly last wrote.
 */
export function movedBranchMessage(integration: string, tip: string, recorded: string): string {
  return (
    `the integration branch ${integration} was moved outside whilly (it is at ${tip.slice(0, 12)}, whilly last wrote ${recorded.slice(0, 12)}): ` +
    `merging onto it could drop DONE work, so whilly refuses. Put it back with: git update-ref refs/heads/${integration} ${recorded}`
  );
}

/** Refuses to go on with an integration branch moved behind whilly's back; see {@link movedBranchMessage}. */
export function movedBranchError(integration: string, tip: string, recorded: string): ConfigurationError {
  return new ConfigurationError(movedBranchMessage(integration, tip, recorded), {
    hint: `git update-ref refs/heads/${integration} ${recorded} restores whilly's tip; or delete the branch (and refs/whilly/tips/${integration}) to start the plan's branch afresh`,
  });
}
