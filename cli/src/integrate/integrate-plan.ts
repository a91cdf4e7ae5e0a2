import { existsSync } from "node:fs";
import type { TaskStatus } from "@whilly/core";
import { type CheckSettings, recordVerified, runSetup, runVerify, verifiedCommit } from "./checks.js";
import { fetchWork, hasCommit } from "./fetch.js";
import { isMerged, mergeCommit } from "./merge.js";
import type { IntegrationQueue, QueuedTask } from "./order.js";
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
import {
  closeWorktree,
  ensureBranch,
  markSetupDone,
  openWorktree,
  setupDone,
  worktreeState,
} from "./worktree.js";

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
  /** DONE tasks not in the branch yet because the run stopped: the one it stopped at (unless merged) and later ones. */
  readonly notMerged: readonly string[];
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
export function integratePlan(
  target: IntegrationTarget,
  options: IntegrateOptions,
): Promise<IntegrationReport> {
  return new IntegrationRun(target, options).run();
}

/** One run of {@link integratePlan}: what it did so far, and whether the worktree is open. */
class IntegrationRun {
  private readonly at: StopContext;
  private readonly merged: { taskId: string; commit: string; fetched: boolean }[] = [];
  private readonly alreadyIn: { taskId: string; commit: string }[] = [];
  private reached = 0;
  private created = false;
  private pushed = false;
  private open = false;
  /** The open worktree's setup ran to its end (a run killed during it left one that was not set up). */
  private setUp = false;

  constructor(
    private readonly target: IntegrationTarget,
    private readonly options: IntegrateOptions,
  ) {
    this.at = { dir: target.dir, branch: target.branch, rerun: options.rerun };
  }

  async run(): Promise<IntegrationReport> {
    const stop = (await this.start()) ?? (await this.mergeAll()) ?? (await this.push());
    if (stop === undefined) await closeWorktree(this.target);
    return this.report(stop);
  }

  /**
   * Refuses a worktree left mid-merge or with changes, makes the branch if missing, checks the remote
   * is there when something must be fetched, and verifies a tip the user moved.
   */
  private async start(): Promise<Stop | undefined> {
    const { target, at } = this;
    const state = await worktreeState(target);
    if (state.kind === "merging") return conflictStop(at, this.taskOf(state.mergeHead), state.files, false);
    if (state.kind === "dirty" || state.kind === "other_branch") return worktreeStop(at, state);
    this.open = state.kind !== "absent";
    this.setUp = this.open && (await setupDone(target));
    const branch = await ensureBranch(target, this.options.planId);
    this.created = branch.created;
    let verified = await verifiedCommit(target);
    if (branch.created || verified === undefined) {
      await recordVerified(target, branch.tip);
      verified = branch.tip;
    }
    const missing: string[] = [];
    for (const { id, work } of this.options.queue.done)
      if (work && !(await hasCommit(target, work.commit))) missing.push(id);
    if (missing.length > 0) await requireRemote(target, `to fetch the work of task ${missing.join(", ")}`);
    if (this.options.checks.verify.length === 0 || branch.tip === verified) return undefined;
    // A tip past the last verified one (the user's merge or fix): check it before merging onto it.
    const last = await secondParent(target, branch.tip);
    const failed = (await this.ensureOpen()) ?? (await runVerify(target, this.options.checks));
    if (failed === undefined) {
      this.options.progress(`${target.branch}: verify passed on ${branch.tip.slice(0, 12)}`);
      await recordVerified(target, branch.tip);
      return undefined;
    }
    if ("reason" in failed) return failed;
    this.options.progress(`${target.branch}: verify failed on ${branch.tip.slice(0, 12)}`);
    return verifyStop(at, last && this.taskOf(last), failed);
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
      const next = [
        `check that ${work.branch} is on ${target.remote} (git ls-remote ${target.remote} ${work.branch}), then run again: ${options.rerun}`,
      ];
      options.progress(`${task.id}: could not get its commit from ${target.remote}`);
      return gitStop("fetch_failed", task.id, fetched.message, fetched.output_tail, next);
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
      const message = `git merge of task ${task.id} failed (exit ${result.exit_code}) before merging anything`;
      const next = [`fix what git says in ${target.dir}, then run again: ${options.rerun}`];
      return gitStop("merge_failed", task.id, message, result.output_tail, next);
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
    const failed = await pushBranch(this.target);
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
    const { target, options } = this;
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
    return {
      planId: options.planId,
      branch: target.branch,
      created: this.created,
      remote: target.remote,
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
