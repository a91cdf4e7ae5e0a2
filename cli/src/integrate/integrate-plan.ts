import { existsSync } from "node:fs";
import { planMark } from "@whilly/agent";
import { dropBranch, lookUpRemoteBranch, onlyOnRemote, type RemoteBranch, startBranch } from "./branch.js";
import { type CheckSettings, recordVerified, runSetup, runVerify, verifiedCommit } from "./checks.js";
import { fetchWork, hasCommit } from "./fetch.js";
import { divergedStop, fetchStop, mergeFailedStop, remoteStop } from "./git-stops.js";
import { isMerged, mergeCommit } from "./merge.js";
import type { IntegrationQueue, QueuedTask } from "./order.js";
import { pushBranch } from "./push.js";
import type { IntegrationReport } from "./report.js";
import {
  conflictStop,
  noWorkStop,
  type Stop,
  type StopContext,
  type StopReason,
  setupStop,
  verifyStop,
  worktreeStop,
} from "./stops.js";
import { type IntegrationTarget, requireRemote } from "./target.js";
import { closeWorktree, markSetupDone, openWorktree, setupDone, worktreeState } from "./worktree.js";

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
export function integratePlan(
  target: IntegrationTarget,
  options: IntegrateOptions,
): Promise<IntegrationReport> {
  return new IntegrationRun(target, options).run();
}

/** Stops that leave nothing to finish in the worktree: a branch this run made and merged nothing into goes. */
const LEAVES_NOTHING: ReadonlySet<StopReason> = new Set([
  "fetch_failed",
  "no_work",
  "setup_failed",
  "interrupted",
]);

/** One run of {@link integratePlan}: what it did so far, and whether the worktree is open. */
class IntegrationRun {
  private readonly merged: { taskId: string; commit: string; fetched: boolean }[] = [];
  private readonly alreadyIn: { taskId: string; commit: string }[] = [];
  private reached = 0;
  private createdFrom: string | undefined;
  private fastForwarded: string | undefined;
  private remoteBranch: RemoteBranch = { kind: "none" };
  private ownBranch = false;
  private pushed = false;
  private open = false;
  /** The open worktree's setup ran to its end (a run killed during it left one that was not set up). */
  private setUp = false;

  constructor(
    private readonly target: IntegrationTarget,
    private readonly options: IntegrateOptions,
  ) {}

  private get at(): StopContext {
    const { top, dir, branch, remote } = this.target;
    return { top, dir, branch, remote, rerun: this.options.rerun, ownBranch: this.ownBranch };
  }

  async run(): Promise<IntegrationReport> {
    if (this.options.queue.done.length === 0) return this.report(undefined);
    let stop: Stop | undefined;
    try {
      stop = (await this.start()) ?? (await this.mergeAll()) ?? (await this.push());
    } catch (error) {
      await this.dropIfUnused();
      throw error;
    }
    if (stop === undefined || stop.reason === "push_failed") await closeWorktree(this.target);
    else if (LEAVES_NOTHING.has(stop.reason)) await this.dropIfUnused();
    return this.report(stop);
  }

  /**
   * Refuses a worktree left mid-merge or with changes, checks the remote is there when something must
   * be fetched, starts the branch and verifies a tip the user moved.
   */
  private async start(): Promise<Stop | undefined> {
    const { target, options } = this;
    this.ownBranch = (await planMark(target.git, target.top, target.branch)) === options.planId;
    const state = await worktreeState(target);
    if (state.kind === "merging")
      return conflictStop(this.at, this.taskOf(state.mergeHead), state.files, false);
    if (state.kind === "dirty" || state.kind === "other_branch") return worktreeStop(this.at, state);
    this.open = state.kind !== "absent";
    this.setUp = this.open && (await setupDone(target));
    const missing: string[] = [];
    for (const { id, work } of options.queue.done)
      if (work && !(await hasCommit(target, work.commit))) missing.push(id);
    if (missing.length > 0) await requireRemote(target, `to fetch the work of task ${missing.join(", ")}`);
    const begun = await this.beginBranch();
    return typeof begun === "string" ? this.verifyMovedTip(begun) : begun;
  }

  /**
   * Starts the branch, from the remote's when it is missing here (see {@link startBranch}); with
   * `--push`, stops when the remote's branch has commits this one lacks. The tip, or the stop.
   */
  private async beginBranch(): Promise<string | Stop> {
    const { target, options } = this;
    const remote = await lookUpRemoteBranch(target);
    this.remoteBranch = remote;
    if (remote.kind === "unreachable") {
      if (options.push) return remoteStop(this.at, remote.message, remote.outputTail);
      options.progress(`${target.branch}: ${remote.message}; going on with the local branch`);
    }
    const branch = await startBranch(target, options.planId, remote, this.open);
    this.createdFrom = branch.createdFrom;
    this.fastForwarded = branch.fastForwarded;
    if (branch.createdFrom !== undefined) this.ownBranch = true;
    const moved = branch.fastForwarded
      ? `fast-forwarded to ${branch.fastForwarded}`
      : `created from ${branch.createdFrom}`;
    if (branch.fastForwarded || (remote.kind === "found" && branch.createdFrom === remote.ref))
      options.progress(`${target.branch}: ${moved} (${branch.tip.slice(0, 12)})`);
    const onlyThere = await onlyOnRemote(target, remote);
    if (onlyThere === 0 || remote.kind !== "found") return branch.tip;
    const commits = `${onlyThere} commit${onlyThere === 1 ? "" : "s"}`;
    options.progress(
      `${target.branch}: ${remote.ref} has ${commits} ${target.branch} does not (pushed from another clone)`,
    );
    if (!options.push) return branch.tip;
    return (await this.ensureOpen()) ?? divergedStop(this.at, remote.ref, onlyThere);
  }

  /** Verifies a tip past the last verified one (the user's merge or fix) before merging onto it. */
  private async verifyMovedTip(tip: string): Promise<Stop | undefined> {
    const { target, options } = this;
    const verified = await verifiedCommit(target);
    if (verified === undefined) await recordVerified(target, tip);
    if (options.checks.verify.length === 0 || verified === undefined || tip === verified) return undefined;
    const last = await secondParent(target, tip);
    const failed = (await this.ensureOpen()) ?? (await runVerify(target, options.checks));
    if (failed === undefined) {
      options.progress(`${target.branch}: verify passed on ${tip.slice(0, 12)}`);
      await recordVerified(target, tip);
      return undefined;
    }
    if ("reason" in failed) return failed;
    options.progress(`${target.branch}: verify failed on ${tip.slice(0, 12)}`);
    return verifyStop(this.at, last && this.taskOf(last), failed);
  }

  /** Removes the branch (and worktree) this run made when it merged nothing into it. */
  private async dropIfUnused(): Promise<void> {
    if (this.createdFrom === undefined || this.merged.length > 0) return;
    await dropBranch(this.target);
    this.createdFrom = undefined;
    this.open = false;
    this.options.progress(`${this.target.branch}: removed again, as nothing was merged into it`);
  }

  private async mergeAll(): Promise<Stop | undefined> {
    for (const task of this.options.queue.done) {
      const stop = await this.mergeTask(task);
      if (stop !== undefined) return stop;
      this.reached++;
    }
    return undefined;
  }

  /** Merges one task's work and verifies the result; `undefined` when it is in (now or before). */
  private async mergeTask(task: QueuedTask): Promise<Stop | undefined> {
    const { target, at, options } = this;
    const work = task.work;
    if (work === undefined) return noWorkStop(at, task.id);
    if ((await hasCommit(target, work.commit)) && (await isMerged(target, work.commit))) {
      this.alreadyIn.push({ taskId: task.id, commit: work.commit });
      options.progress(`${task.id}: already in ${target.branch}`);
      return undefined;
    }
    const fetched = await fetchWork(target, work);
    if (!fetched.ok) {
      options.progress(`${task.id}: could not get its commit from ${target.remote}`);
      return fetchStop(at, task.id, work, fetched);
    }
    const setupFailed = await this.ensureOpen();
    if (setupFailed) return setupFailed;
    const result = await mergeCommit(target, { planId: options.planId, id: task.id }, work.commit);
    const from = fetched.fetched ? ` (fetched from ${target.remote})` : "";
    if (result.kind === "conflict") {
      options.progress(
        `${task.id}: conflict in ${result.files.length} file${result.files.length === 1 ? "" : "s"}`,
      );
      return conflictStop(at, task.id, result.files, true);
    }
    if (result.kind === "failed") {
      options.progress(`${task.id}: git merge failed`);
      return mergeFailedStop(at, task.id, result.exit_code, result.output_tail);
    }
    this.merged.push({ taskId: task.id, commit: work.commit, fetched: fetched.fetched });
    const failed = await runVerify(target, options.checks);
    if (failed) {
      options.progress(`${task.id}: merged${from}, verify failed`);
      this.reached++;
      return verifyStop(at, task.id, failed);
    }
    await recordVerified(target, result.commit);
    options.progress(`${task.id}: merged${from}${options.checks.verify.length > 0 ? ", verify passed" : ""}`);
    return undefined;
  }

  private async push(): Promise<Stop | undefined> {
    if (!this.options.push) return undefined;
    const failed = await pushBranch(this.target, this.at);
    if (failed !== undefined) return failed;
    this.pushed = true;
    this.options.progress(`${this.target.branch}: pushed to ${this.target.remote}`);
    return undefined;
  }

  /**
   * Opens the worktree when it is not yet and runs the plan's setup in it, unless it ran to its end
   * there before; a failed setup removes the worktree again.
   */
  private async ensureOpen(): Promise<Stop | undefined> {
    if (!this.open) {
      const { fresh } = await openWorktree(this.target);
      this.open = true;
      this.setUp = !fresh && (await setupDone(this.target));
    }
    if (this.setUp) return undefined;
    const failed = await runSetup(this.target, this.options.checks);
    if (failed === undefined) {
      await markSetupDone(this.target);
      this.setUp = true;
      return undefined;
    }
    await closeWorktree(this.target);
    this.open = false;
    return setupStop(this.at, failed);
  }

  private taskOf(commit: string): string | undefined {
    return this.options.queue.done.find((t) => t.work?.commit === commit)?.id;
  }

  /**
   * The report; DONE tasks the run did not get to are sorted into those the branch holds already (an
   * earlier run's, or the user's) and those it does not.
   */
  private async report(stop: Stop | undefined): Promise<IntegrationReport> {
    const { target, options, remoteBranch } = this;
    const notMerged: string[] = [];
    for (const { id, work } of options.queue.done.slice(this.reached)) {
      if (this.merged.some((m) => m.taskId === id)) continue;
      const isIn =
        work !== undefined && (await hasCommit(target, work.commit)) && (await isMerged(target, work.commit));
      if (isIn && work !== undefined) this.alreadyIn.push({ taskId: id, commit: work.commit });
      else notMerged.push(id);
    }
    const ref = `refs/heads/${target.branch}`;
    const tip = (await target.git.run(target.top, ["rev-parse", "-q", "--verify", ref])).stdout.trim();
    const onlyThere = await onlyOnRemote(target, remoteBranch);
    return {
      planId: options.planId,
      branch: target.branch,
      status: stop ? "stopped" : options.queue.done.length === 0 ? "nothing_to_integrate" : "integrated",
      createdFrom: this.createdFrom,
      fastForwarded: this.fastForwarded,
      remote: target.remote,
      remoteBranch: remoteBranch.kind === "found" ? { ref: remoteBranch.ref, onlyThere } : undefined,
      merged: this.merged,
      alreadyIn: this.alreadyIn,
      notMerged,
      notDone: options.queue.notDone,
      tip,
      pushed: this.pushed,
      worktree: stop !== undefined && existsSync(target.dir) ? target.dir : undefined,
      stop,
    };
  }
}

/** The commit a merge commit merged in (`<commit>^2`), or `undefined` for any other commit. */
async function secondParent(target: IntegrationTarget, commit: string): Promise<string | undefined> {
  const found = await target.git.run(target.top, ["rev-parse", "-q", "--verify", `${commit}^2`]);
  return found.code === 0 ? found.stdout.trim() : undefined;
}
