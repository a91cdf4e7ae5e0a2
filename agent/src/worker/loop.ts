import {
  type AttemptProgress,
  type ClaimRequest,
  type ClaimResponse,
  DEFAULT_LIMIT_BACKOFF_MAX_MS,
  DEFAULT_LIMIT_BACKOFF_MS,
  type TaskPayload,
  type VersionConflict,
} from "@whilly/core";
import { dependencyWorkOf, type TaskClient } from "../client/task-client.js";
import type { TaskBudget } from "./budget.js";
import type { Capabilities } from "./capabilities.js";
import { createHandBack } from "./hand-back.js";
import { startHeartbeat } from "./heartbeat.js";
import { createPauseGate, type PauseGate } from "./pause.js";
import {
  alreadyMoved,
  asError,
  dateOf,
  definedOnly,
  failedAlready,
  isLeaseLost,
  isRefusal,
  type Landed,
  reported,
  reportOf,
  spendOf,
  withAttempt,
} from "./replies.js";
import { type Backoff, withRetry } from "./retry.js";
import type { AfterFail, AgentAttempt, ProgressEvent, RunAttempt, WorkerStats } from "./types.js";

export { createTaskBudget, type TaskBudget } from "./budget.js";

/** The reason of the release that counts the cost of an attempt whose lease was lost before its work went out. */
const LEASE_LOST_REASON = "lease_lost";

/** The worker's say on the agent and model, as a claim carries it. */
type ClaimChoice = NonNullable<ClaimRequest["choice"]>;

/** Options of {@link runWorkerLoop}. Durations are milliseconds. */
export type WorkerLoopOptions = {
  client: TaskClient;
  planId: string;
  runAttempt: RunAttempt;
  /** Aborting stops the loop: a parked claim is abandoned, a running agent killed and its task released (`shutdown`). */
  stopSignal: AbortSignal;
  heartbeatIntervalMs: number;
  /**
   * While an agent runs, emit a `running` event this often (ms), so a task that runs for many minutes
   * shows it is alive; none when undefined.
   */
  progressIntervalMs?: number | undefined;
  /** Stop after this many attempts were reported (done, failed, or failed with a retry queued); unbounded when undefined. */
  maxTasks?: number | undefined;
  /**
   * `maxTasks` shared by the claim slots of one process: each claim takes a task from it first, and gives
   * it back when the claim found nothing or its task was handed back or lost. No claim once it is empty.
   */
  taskBudget?: TaskBudget | undefined;
  /** Stop after this many claim requests, idle polls included; unbounded when undefined. */
  maxIterations?: number | undefined;
  /**
   * Called when a claim found nothing ready. Resolve `true` to claim again, `false` to stop.
   * A remote worker long-polls forever; local mode stops once no task can become ready.
   */
  onIdle: () => Promise<boolean>;
  onProgress?: (event: ProgressEvent) => void;
  backoff?: Backoff;
  /**
   * How long one call (a claim, a start, a report) is retried before the loop gives up and throws
   * (ms); retried for ever when undefined.
   */
  retryBudgetMs?: number | undefined;
  /**
   * Where a provider limit or a machine fault stops claims: give every slot of a process the same gate. Default: a gate of
   * this loop's own with the default limit backoff (60 s doubling, at most 6 h).
   */
  pause?: PauseGate | undefined;
  /**
   * While paused, `wait` (the default) waits the pause out before claiming; `stop` ends the loop instead
   * (`whilly run --no-wait`): the caller tells from the gate that work was left waiting.
   */
  whenPaused?: "wait" | "stop" | undefined;
  /**
   * What the worker can run, sent with each claim; a usage limit on one agent of several pauses that
   * agent alone (it is left out of the claims until its reset) when the control plane routes by agent
   * (its claim reply names the task's agent). None (an older worker's claim) when undefined.
   */
  capabilities?: Capabilities | undefined;
  /** `--agent`/`--model`/`--force-agent`/`--force-model`, sent with each claim. */
  choice?: ClaimChoice | undefined;
  /**
   * Started in the background once a failed attempt was reported (the failure analysis,
   * `WHILLY_TRIZ_ENABLED`); drained before the loop returns. None when undefined.
   */
  afterFail?: AfterFail | undefined;
  now?: () => number;
};

/**
 * The worker's claim loop: claim a ready task, mark it started, run the agent, report the result, repeat.
 * Heartbeats run on their own timer throughout, renewing the leases of a long agent run.
 *
 * Network errors and 5xx are retried with capped exponential backoff, for `retryBudgetMs` per call when
 * given. A finished task's result is kept and its report retried until the control plane answers (or
 * the budget runs out), so a restart loses no completion; if a retry meets a 409 showing the call
 * already took effect (its first reply was lost), that counts as success.
 * Any other 409 means the lease was lost meanwhile: the result is dropped and counted as `lost`.
 * A heartbeat refused with 401/403 stops the loop as the credentials are no longer accepted.
 * An agent that cannot run here (not logged in, not installed) hands its task back with the refunding
 * reason `agent_unavailable` and stops the loop. An agent that met a provider limit hands its task back
 * with `rate_limited` (refunded, with the pause's end) and the loop claims nothing before the pause ends.
 * An attempt that git on this machine failed (`fault`: a dependency's work not fetched, a push refused)
 * hands its task back with `workspace_unavailable` (refunded, with what the agent cost) and pauses
 * claims for the gate's capped backoff. A DONE attempt's `work` (branch, commit) goes with its completion.
 * A failed attempt with attempts left goes back to `PENDING` (a retry, decided by the control plane).
 * Once a failed attempt is reported, `afterFail` starts its work in the background (the next claim
 * goes out at once); the loop drains it before returning.
 * @returns counters for the run.
 * @throws {AgentUnavailable} when the agent cannot run on this machine; its task was handed back.
 * @throws {Unauthorized} @throws {Forbidden} when the credentials are refused.
 * @throws {WhillyError} any other non-retryable protocol error (e.g. a 404 or 422 from the control plane).
 * @throws {TransportError} not retryable, when a call was retried for `retryBudgetMs` without an answer.
 */
export async function runWorkerLoop(options: WorkerLoopOptions): Promise<WorkerStats> {
  const { client } = options;
  const now = options.now ?? Date.now;
  const emit = options.onProgress ?? (() => {});
  const stats: WorkerStats = {
    claimed: 0,
    completed: 0,
    failed: 0,
    retried: 0,
    released: 0,
    limited: 0,
    lost: 0,
    idlePolls: 0,
  };
  const gate =
    options.pause ??
    createPauseGate({ backoffMs: DEFAULT_LIMIT_BACKOFF_MS, backoffMaxMs: DEFAULT_LIMIT_BACKOFF_MAX_MS, now });
  // A refused heartbeat ends the loop like a stop request, then is thrown once the task is dealt with.
  let refused: Error | undefined;
  const refusal = new AbortController();
  const stopSignal = AbortSignal.any([options.stopSignal, refusal.signal]);
  const { releaseQuietly, handedBack } = createHandBack({
    client,
    gate,
    capabilities: options.capabilities,
    stats,
    emit,
    stopSignal,
  });
  const retry = <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      signal: stopSignal,
      budgetMs: options.retryBudgetMs,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      onRetry: (error, delayMs) => emit({ kind: "retrying", what, delayMs, error }),
    });
  // The task between a claim's reply and its reported result; heartbeats renew only its lease.
  let current: TaskPayload | undefined;
  // What the current task's attempt did last, sent with each heartbeat.
  let progress: AttemptProgress | undefined;
  let loopEnded = false;
  const stopHeartbeat = startHeartbeat(
    client,
    options.heartbeatIntervalMs,
    (error) => {
      // A beat still in flight when the loop ended has nothing left to tell.
      if (loopEnded) return;
      if (isRefusal(error)) {
        refused ??= error;
        refusal.abort(error);
      }
      emit({ kind: "heartbeat_failed", error });
    },
    () => (current ? [{ task: current, progress }] : []),
  );
  try {
    let iterations = 0;
    while (mayClaim(iterations)) {
      if (!(await pauseOver())) break;
      if (options.taskBudget?.take() === false) break;
      iterations++;
      if (!(await claimAndRun())) break;
    }
  } finally {
    loopEnded = true;
    stopHeartbeat();
    await options.afterFail?.drain();
  }
  if (refused) throw refused;
  return stats;

  /** One claim, and the run of what it got; false when the loop is to end. */
  async function claimAndRun(): Promise<boolean> {
    const claimed = await claimNext();
    if (claimed === "stopped" || !claimed) options.taskBudget?.giveBack();
    if (claimed === "stopped") return false;
    if (!claimed) {
      stats.idlePolls++;
      return options.onIdle();
    }
    stats.claimed++;
    emit({ kind: "claimed", task: claimed.task });
    current = claimed.task;
    const finishedBefore = reported(stats);
    try {
      await runOne(claimed);
    } finally {
      current = undefined;
      progress = undefined;
      // A task handed back or lost did not use up a task of the budget.
      if (reported(stats) === finishedBefore) options.taskBudget?.giveBack();
    }
    return true;
  }

  /** Waits out a provider limit's pause; false when the loop is to end instead. */
  async function pauseOver(): Promise<boolean> {
    if (gate.pausedUntil() === undefined) return true;
    if (options.whenPaused === "stop") return false;
    await gate.wait(stopSignal);
    return !stopSignal.aborted;
  }

  function mayClaim(iterations: number): boolean {
    if (stopSignal.aborted) return false;
    if (options.maxTasks !== undefined && reported(stats) >= options.maxTasks) return false;
    return options.maxIterations === undefined || iterations < options.maxIterations;
  }

  /** A claim, or `"stopped"` when a stop came first (a task claimed meanwhile is handed back). */
  async function claimNext(): Promise<ClaimResponse | undefined | "stopped"> {
    try {
      const claimed = await retry("claim", () =>
        client.claim(options.planId, {
          signal: stopSignal,
          capabilities: options.capabilities?.advertised(),
          choice: options.choice,
        }),
      );
      if (!stopSignal.aborted) return claimed;
      if (claimed) await releaseQuietly(claimed.task);
      return "stopped";
    } catch (error) {
      if (stopSignal.aborted && !isRefusal(error)) return "stopped";
      throw error;
    }
  }

  async function runOne(claimed: ClaimResponse): Promise<void> {
    const task = await begin(claimed.task);
    if (task === undefined) return;
    emit({ kind: "started", task });
    const startedAt = now();
    const ticker =
      options.progressIntervalMs === undefined
        ? undefined
        : setInterval(
            () => emit({ kind: "running", task, elapsedMs: now() - startedAt }),
            options.progressIntervalMs,
          );
    // The agent's child process keeps the event loop alive; this timer alone must not.
    ticker?.unref?.();
    let attempt: AgentAttempt;
    try {
      attempt = await options.runAttempt({
        task,
        plan: claimed.plan,
        signal: stopSignal,
        dependencyWork: dependencyWorkOf(claimed),
        onActivity: (update) => {
          if (current?.id !== task.id) return;
          progress = { ...progress, ...definedOnly(update) };
          emit({ kind: "activity", task, progress });
        },
        holdsLease: () => holds(task),
      });
    } finally {
      clearInterval(ticker);
    }
    await settle(task, attempt, now() - startedAt);
  }

  /**
   * Whether the control plane still has `task` as this worker's: a heartbeat naming it renews its lease,
   * or says it is gone (an older server that does not count renewals is taken at its word: held).
   */
  async function holds(task: TaskPayload): Promise<boolean> {
    const reply = await retry("heartbeat", () => client.heartbeat([{ task, progress }]));
    return reply.ok && reply.renewed !== 0;
  }

  /** What follows an attempt: a hand-back (unavailable, limited, faulted, stopped) or its report. */
  async function settle(task: TaskPayload, attempt: AgentAttempt, wallMs: number): Promise<void> {
    if (attempt.leaseLost) {
      // Nothing was published. The release only counts what the agent cost: it is refused, the lease gone.
      await client.release(task, LEASE_LOST_REASON, undefined, spendOf(attempt)).catch(() => undefined);
      lose(task, new Error(attempt.leaseLost.message), false);
      return;
    }
    if (await handedBack(task, attempt)) return;
    gate.succeeded();
    const agent = attempt.detail.agent;
    if (typeof agent === "string") options.capabilities?.succeeded(agent);
    const landed = await report(task, attempt, wallMs);
    if (landed === undefined) return;
    // Only for a FAIL the control plane took (a 409 after a lost lease looks like one that landed),
    // and not while stopping: a question started now would only hold the shutdown up.
    if (!attempt.ok && landed.answered && !stopSignal.aborted)
      options.afterFail?.start(task, {
        agent: textOf(attempt.detail.agent),
        model: textOf(attempt.detail.model),
      });
    // A failed attempt with attempts left is no finished task: the control plane queued a retry.
    const retry = !attempt.ok && landed.status === "PENDING";
    if (attempt.ok) stats.completed++;
    else if (retry) stats.retried++;
    else stats.failed++;
    const notBefore = retry ? landed.notBefore : undefined;
    const finished = { task, attempt: withAttempt(attempt, task.attempts), elapsedMs: wallMs, retry };
    emit({ kind: "finished", ...finished, ...(notBefore === undefined ? {} : { notBefore }) });
  }

  /** Marks the claimed task `IN_PROGRESS`; `undefined` when it cannot run (lease lost, or stopping). */
  async function begin(claimed: TaskPayload): Promise<TaskPayload | undefined> {
    // A claim may have started the task already; then there is nothing to start.
    if (claimed.status === "IN_PROGRESS") return claimed;
    try {
      return await retry("start", () => client.start(claimed));
    } catch (error) {
      if (alreadyMoved(error, claimed, "IN_PROGRESS")) {
        const { version, attempts } = claimed;
        return { ...claimed, status: "IN_PROGRESS", version: version + 1, attempts: attempts + 1 };
      }
      if (isLeaseLost(error)) lose(claimed, error, true);
      else if (stopSignal.aborted) await releaseQuietly(claimed);
      else throw error;
      return undefined;
    }
  }

  /**
   * Reports the attempt until the control plane answers: the status it landed in, with a retry's
   * not-before when the reply said; `undefined` when the result was dropped.
   */
  async function report(
    task: TaskPayload,
    attempt: AgentAttempt,
    wallMs: number,
  ): Promise<Landed | undefined> {
    const body = reportOf(task, attempt, wallMs);
    try {
      const reply = await retry(attempt.ok ? "complete" : "fail", () =>
        attempt.ok ? client.complete(task, body) : client.fail(task, attempt.reason ?? "failed", body),
      );
      return { status: reply.status, notBefore: dateOf(reply.not_before), answered: true };
    } catch (error) {
      // A failure with attempts left lands PENDING (a retry) rather than FAILED.
      if (attempt.ok ? alreadyMoved(error, task, "DONE") : failedAlready(error, task))
        return { status: (error as VersionConflict).actualStatus, notBefore: undefined };
      if (isLeaseLost(error)) {
        lose(task, asError(error), false);
        return undefined;
      }
      if (!stopSignal.aborted) throw error;
      // Stopping while the control plane is unreachable: the lease is not lost, only not handed back;
      // it runs out and the task is run again.
      emit({ kind: "release_failed", task, error: asError(error) });
      return undefined;
    }
  }

  function lose(task: TaskPayload, error: Error, beforeStart: boolean): void {
    stats.lost++;
    emit({ kind: "lost", task, error, beforeStart });
  }
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
