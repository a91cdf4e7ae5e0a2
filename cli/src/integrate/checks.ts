import { runChecks, runShellStep } from "@whilly/agent";
import type { IntegrationTarget } from "./target.js";

/** The plan's checks and how they run; durations in ms. */
export type CheckSettings = {
  /** The plan's `verify` commands, run on the merged tree; none means nothing is checked. */
  readonly verify: readonly string[];
  /** The plan's `setup`, run once in a new worktree before its first check. */
  readonly setup: string | undefined;
  /** Each command's limit (`--verify-timeout`). */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL when one runs out. */
  readonly killGraceMs: number;
  /** The commands' environment (the CLI's; whilly's own credentials are dropped). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal | undefined;
};

/** A command that failed, timed out or was stopped (`interrupted`). */
export type CheckFailure = {
  readonly step: string;
  readonly exit_code: number | null;
  readonly output_tail: string;
  readonly interrupted: boolean;
};

/**
 * The ref holding the last tip of `branch` the plan's verify passed on (or the tip integrate started
 * from): a tip past it, a merge the user committed or a fix on top, is checked before anything more is
 * merged, so a rerun never reports a branch whose last check failed as integrated.
 */
export function verifiedRef(branch: string): string {
  return `refs/whilly/verified/${branch}`;
}

/** The commit {@link verifiedRef} points at, or `undefined` when none was recorded. */
export async function verifiedCommit(target: IntegrationTarget): Promise<string | undefined> {
  const ref = `${verifiedRef(target.branch)}^{commit}`;
  const found = await target.git.run(target.top, ["rev-parse", "-q", "--verify", ref]);
  return found.code === 0 ? found.stdout.trim() : undefined;
}

/** Records `commit` as verified (see {@link verifiedRef}). */
export async function recordVerified(target: IntegrationTarget, commit: string): Promise<void> {
  await target.git.ok(target.top, ["update-ref", verifiedRef(target.branch), commit]);
}

/** Runs the plan's setup in the (new) integration worktree; `undefined` when it worked or there is none. */
export async function runSetup(
  target: IntegrationTarget,
  settings: CheckSettings,
): Promise<CheckFailure | undefined> {
  const command = settings.setup;
  if (command === undefined || command.trim() === "" || settings.verify.length === 0) return undefined;
  const run = await runShellStep({ ...settings, command, cwd: target.dir, timeoutMs: settings.timeoutMs });
  if (run.exitCode === 0 && !run.aborted) return undefined;
  return { step: command, exit_code: run.exitCode, output_tail: run.outputTail, interrupted: run.aborted };
}

/**
 * Runs the plan's verify commands in the integration worktree, one at a time with the timeout (a
 * command not found counts as manual, as in `whilly run`); `undefined` when they passed or there are
 * none. Tracked files a check changed are put back, so the next merge starts from the commit.
 */
export async function runVerify(
  target: IntegrationTarget,
  settings: CheckSettings,
): Promise<CheckFailure | undefined> {
  if (settings.verify.length === 0) return undefined;
  const result = await runChecks({ ...settings, cwd: target.dir, steps: [], verify: settings.verify });
  if (result.aborted)
    return { step: "verify", exit_code: null, output_tail: "interrupted", interrupted: true };
  if (result.failing !== undefined) {
    const { step, exit_code, output_tail } = result.failing;
    return { step, exit_code, output_tail, interrupted: false };
  }
  await target.git.ok(target.dir, ["reset", "-q", "--hard", "HEAD"]);
  return undefined;
}
