import { existsSync } from "node:fs";
import type { TaskStatus } from "@whilly/core";
import { type CheckSettings, recordVerified, runSetup, runVerify, verifiedCommit } from "./checks.js";
import { fetchWork, hasCommit } from "./fetch.js";
import { isMerged, mergeCommit } from "./merge.js";
import type { IntegrationQueue } from "./order.js";
import { pushBranch } from "./push.js";
import {
  conflictStop,
  gitStop,
  noWorkStop,
  type Stop,
  type StopContext,
  setupStop,
  verifyStop,
  worktreeStop,
} from "./stops.js";
import { type IntegrationTarget, requireRemote } from "./target.js";
import { closeWorktree, ensureBranch, openWorktree, worktreeState } from "./worktree.js";

/** What one `plan integrate` run did. */
export type IntegrationReport = {
  readonly planId: string;
  readonly branch: string;
  /** True when this run made the branch (at the clone's HEAD). */
  readonly created: boolean;
  readonly remote: string;
  /** Tasks merged by this run, in order; `fetched` when the commit came from the remote. */
  readonly merged: readonly { readonly taskId: string; readonly commit: string; readonly fetched: boolean }[];
  /** DONE tasks whose commit the branch already held (an earlier run, or the user). */
  readonly alreadyIn: readonly { readonly taskId: string; readonly commit: string }[];
  /** DONE tasks not looked at because the run stopped first. */
  readonly notReached: readonly string[];
  readonly notDone: readonly { readonly id: string; readonly status: TaskStatus }[];
  /** The branch's tip when the run ended. */
  readonly tip: string;
  readonly pushed: boolean;
  /** The integration worktree, kept when the run stopped (for the user to finish the work there). */
  readonly worktree: string | undefined;
  readonly stop: Stop | undefined;
};

/** Options of {@link integratePlan}. */
export type IntegrateOptions = {
  readonly planId: string;
  readonly queue: IntegrationQueue;
  readonly checks: CheckSettings;
  readonly push: boolean;
  /** The command line that runs this again, for the hints. */
  readonly rerun: string;
  /** Called with one line per task (and per check of a moved tip), for stderr. */
  readonly progress: (line: string) => void;
};

/**
 * Merges the plan's DONE tasks, in order, into the integration branch in a worktree of its own
 * (docs/integrate.md): commits the branch holds are skipped, missing ones are fetched, the plan's
 * verify runs after each merge (and first on a tip the user moved), and the run stops at the first
 * conflict or failure, leaving the worktree for the user. The worktree is removed when everything
 * went in; then `push` pushes the branch.
 * @throws ConfigurationError when git fails outside a merge, or the remote needed is missing.
 */
export async function integratePlan(
  target: IntegrationTarget,
  options: IntegrateOptions,
): Promise<IntegrationReport> {
  const at: StopContext = { dir: target.dir, branch: target.branch, rerun: options.rerun };
  const merged: { taskId: string; commit: string; fetched: boolean }[] = [];
  const alreadyIn: { taskId: string; commit: string }[] = [];
  const done = options.queue.done;
  let reached = 0;
  let created = false;
  let pushed = false;
  const finish = async (stop: Stop | undefined): Promise<IntegrationReport> => {
    if (stop === undefined) await closeWorktree(target);
    const tip = (await target.git.run(target.top, ["rev-parse", "-q", "--verify", `refs/heads/${target.branch}`]))
      .stdout.trim();
    return {
      planId: options.planId,
      branch: target.branch,
      created,
      remote: target.remote,
      merged,
      alreadyIn,
      notReached: done.slice(reached).map((t) => t.id),
      notDone: options.queue.notDone,
      tip,
      pushed,
      worktree: stop !== undefined && existsSync(target.dir) ? target.dir : undefined,
      stop,
    };
  };
  const taskOf = (commit: string) => done.find((t) => t.work?.commit === commit)?.id;

  const state = await worktreeState(target);
  if (state.kind === "merging") return finish(conflictStop(at, taskOf(state.mergeHead), state.files, false));
  if (state.kind === "dirty" || state.kind === "other_branch") return finish(worktreeStop(at, state));
  const branch = await ensureBranch(target);
  created = branch.created;
  let verified = await verifiedCommit(target);
  if (created || verified === undefined) {
    await recordVerified(target, branch.tip);
    verified = branch.tip;
  }
  const missing = [];
  for (const task of done) if (task.work && !(await hasCommit(target, task.work.commit))) missing.push(task.id);
  if (missing.length > 0) await requireRemote(target, `to fetch the work of task ${missing.join(", ")}`);

  let open = state.kind !== "absent";
  const ensureOpen = async (): Promise<Stop | undefined> => {
    if (open) return undefined;
    const { fresh } = await openWorktree(target);
    open = true;
    const failed = fresh ? await runSetup(target, options.checks) : undefined;
    if (failed === undefined) return undefined;
    await closeWorktree(target);
    open = false;
    return setupStop(at, failed);
  };

  // A tip past the last verified one (the user's merge or fix): check it before merging onto it.
  if (options.checks.verify.length > 0 && branch.tip !== verified) {
    const last = await secondParent(target, branch.tip);
    const taskId = last === undefined ? undefined : taskOf(last);
    const setupFailed = await ensureOpen();
    if (setupFailed) return finish(setupFailed);
    const failed = await runVerify(target, options.checks);
    if (failed) return finish(verifyStop(at, taskId, failed));
    options.progress(`${target.branch}: verify passed on ${branch.tip.slice(0, 12)}`);
    await recordVerified(target, branch.tip);
  }

  for (const task of done) {
    const work = task.work;
    if (work === undefined) return finish(noWorkStop(at, task.id));
    if ((await hasCommit(target, work.commit)) && (await isMerged(target, work.commit))) {
      alreadyIn.push({ taskId: task.id, commit: work.commit });
      options.progress(`${task.id}: already in ${target.branch}`);
      reached++;
      continue;
    }
    const fetched = await fetchWork(target, work);
    if (!fetched.ok) {
      const next = [
        `check that ${work.branch} is on ${target.remote} (git ls-remote ${target.remote} ${work.branch}), then run again: ${options.rerun}`,
      ];
      return finish(gitStop("fetch_failed", task.id, fetched.message, fetched.output_tail, next));
    }
    const setupFailed = await ensureOpen();
    if (setupFailed) return finish(setupFailed);
    const result = await mergeCommit(target, { planId: options.planId, id: task.id }, work.commit);
    if (result.kind === "conflict") return finish(conflictStop(at, task.id, result.files, true));
    if (result.kind === "failed") {
      const message = `git merge of task ${task.id} failed (exit ${result.exit_code}) before merging anything`;
      const next = [`fix what git says in ${target.dir}, then run again: ${options.rerun}`];
      return finish(gitStop("merge_failed", task.id, message, result.output_tail, next));
    }
    reached++;
    const failed = await runVerify(target, options.checks);
    merged.push({ taskId: task.id, commit: work.commit, fetched: fetched.fetched });
    if (failed) return finish(verifyStop(at, task.id, failed));
    await recordVerified(target, result.commit);
    const checked = options.checks.verify.length > 0 ? ", verify passed" : "";
    options.progress(`${task.id}: merged${fetched.fetched ? ` (fetched from ${target.remote})` : ""}${checked}`);
  }
  if (options.push) {
    const failed = await pushBranch(target);
    if (failed !== undefined) return finish(failed);
    pushed = true;
    options.progress(`${target.branch}: pushed to ${target.remote}`);
  }
  return finish(undefined);
}

/** The commit a merge commit merged in (`<commit>^2`), or `undefined` for any other commit. */
async function secondParent(target: IntegrationTarget, commit: string): Promise<string | undefined> {
  const found = await target.git.run(target.top, ["rev-parse", "-q", "--verify", `${commit}^2`]);
  return found.code === 0 ? found.stdout.trim() : undefined;
}
