import { formatUsd, NotOwner, type TaskPayload, VersionConflict } from "@whilly/core";
import type { TaskClient } from "../client/task-client.js";
import { startHeartbeat } from "./heartbeat.js";
import { type Backoff, withRetry } from "./retry.js";
import type { AgentAttempt, ProgressEvent, RunAttempt, WorkerStats } from "./types.js";

/** Options of {@link runWorkerLoop}. Durations are milliseconds. */
export type WorkerLoopOptions = {
  client: TaskClient;
  planId: string;
  runAttempt: RunAttempt;
  /** Aborting stops the loop: a running agent is killed and its task released (`shutdown`). */
  stopSignal: AbortSignal;
  heartbeatIntervalMs: number;
  /** Stop after this many tasks finished (done or failed); unbounded when undefined. */
  maxTasks?: number | undefined;
  /**
   * Called when a claim found nothing ready. Resolve `true` to claim again, `false` to stop.
   * A remote worker long-polls forever; local mode stops once no task can become ready.
   */
  onIdle: () => Promise<boolean>;
  onProgress?: (event: ProgressEvent) => void;
  backoff?: Backoff;
  now?: () => number;
};

/**
 * The worker's claim loop: claim a ready task, mark it started, run the agent, report the result, repeat.
 * Results are retried on transport errors until the control plane answers, so a restart loses no
 * completion; a 409 means the lease was lost meanwhile and the result is dropped (counted as `lost`).
 * @returns counters for the run.
 * @throws {Unauthorized} @throws {Forbidden} when the credentials are refused.
 */
export async function runWorkerLoop(options: WorkerLoopOptions): Promise<WorkerStats> {
  const { client, stopSignal } = options;
  const now = options.now ?? Date.now;
  const emit = options.onProgress ?? (() => {});
  const stats: WorkerStats = { claimed: 0, completed: 0, failed: 0, released: 0, lost: 0, idlePolls: 0 };
  const retry = <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      signal: stopSignal,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      onRetry: (error, delayMs) => emit({ kind: "retrying", what, delayMs, error }),
    });
  const stopHeartbeat = startHeartbeat(client, options.heartbeatIntervalMs, (error) =>
    emit({ kind: "heartbeat_failed", error }),
  );
  try {
    while (
      !stopSignal.aborted &&
      (options.maxTasks === undefined || stats.completed + stats.failed < options.maxTasks)
    ) {
      const claimed = await retry("claim", () => client.claim(options.planId));
      if (stopSignal.aborted) {
        if (claimed) await releaseQuietly(claimed.task);
        break;
      }
      if (!claimed) {
        stats.idlePolls++;
        if (await options.onIdle()) continue;
        break;
      }
      stats.claimed++;
      emit({ kind: "claimed", task: claimed.task });
      await runOne(claimed.task, claimed.plan);
    }
  } finally {
    stopHeartbeat();
  }
  return stats;

  async function runOne(claimedTask: TaskPayload, plan: Parameters<RunAttempt>[0]["plan"]): Promise<void> {
    let task: TaskPayload;
    try {
      task = await retry("start", () => client.start(claimedTask));
    } catch (error) {
      if (isLeaseLost(error)) return lose(claimedTask, error);
      throw error;
    }
    emit({ kind: "started", task });
    const startedAt = now();
    const attempt = await options.runAttempt({ task, plan, signal: stopSignal });
    if (attempt.aborted || stopSignal.aborted) {
      await releaseQuietly(task);
      return;
    }
    const wallMs = now() - startedAt;
    const report = {
      costUsd: formatUsd(attempt.costMicroUsd),
      detail: { attempt: task.attempts, ...attempt.detail, wall_ms: wallMs },
    };
    try {
      await retry(attempt.ok ? "complete" : "fail", () =>
        attempt.ok ? client.complete(task, report) : client.fail(task, attempt.reason ?? "failed", report),
      );
    } catch (error) {
      if (isLeaseLost(error)) return lose(task, error);
      throw error;
    }
    if (attempt.ok) stats.completed++;
    else stats.failed++;
    emit({ kind: "finished", task, attempt: withAttempt(attempt, task.attempts), elapsedMs: wallMs });
  }

  async function releaseQuietly(task: TaskPayload): Promise<void> {
    try {
      await client.release(task, "shutdown");
      stats.released++;
      emit({ kind: "released", task, reason: "shutdown" });
    } catch (error) {
      // The lease may already be gone, or the control plane down; the sweep returns the task either way.
      emit({ kind: "lost", task, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  function lose(task: TaskPayload, error: Error): void {
    stats.lost++;
    emit({ kind: "lost", task, error });
  }
}

function isLeaseLost(error: unknown): error is Error {
  return error instanceof VersionConflict || error instanceof NotOwner;
}

function withAttempt(attempt: AgentAttempt, number: number): AgentAttempt {
  return { ...attempt, detail: { attempt: number, ...attempt.detail } };
}
