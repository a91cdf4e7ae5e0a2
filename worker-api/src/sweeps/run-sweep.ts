import { EVENT_TYPES, type TaskRecord } from "@whilly/core";
import type { NewEvent } from "../store/events/insert-events.js";
import type { Store } from "../store/store.js";

/** What one sweep did. */
export type SweepResult = {
  /** Tasks whose lease ran out, back to `PENDING` (`RELEASE`, reason `visibility_timeout`). */
  readonly expired: readonly TaskRecord[];
  /** Workers this sweep marked offline (no heartbeat within the timeout). */
  readonly offlineWorkers: readonly string[];
  /** Tasks offline workers held, back to `PENDING` (`RELEASE`, reason `worker_offline`). */
  readonly offlineReleased: readonly TaskRecord[];
};

/**
 * One sweep of leases and workers, in two transactions: every expired lease goes back to `PENDING`,
 * then workers silent for longer than `heartbeatTimeoutMs` are marked offline and their tasks go back.
 * A task whose worker keeps heartbeating keeps its lease however long it runs. Runtime-neutral: the
 * Node timer and a Workers alarm both call it.
 */
export async function runSweep(store: Store, heartbeatTimeoutMs: number): Promise<SweepResult> {
  const expired = await store.releaseExpiredLeases();
  const offline = await store.releaseOfflineWorkers(heartbeatTimeoutMs);
  return { expired, offlineWorkers: offline.workers, offlineReleased: offline.released };
}

/** The plans a sweep gave tasks back to, each once. */
export function plansWithReleases(result: SweepResult): string[] {
  return [...new Set([...result.expired, ...result.offlineReleased].map((task) => task.planId))];
}

/**
 * `worker.offline` events for a sweep: one per plan the offline sweep took tasks back from,
 * `{workers, released}` — the workers this sweep marked offline and that plan's released task ids.
 * Per-task `RELEASE` rows are written by the sweep's own transaction; this is the plan log's summary.
 */
export function offlineEvents(result: SweepResult): NewEvent[] {
  const byPlan = new Map<string, string[]>();
  for (const task of result.offlineReleased) {
    const ids = byPlan.get(task.planId) ?? [];
    ids.push(task.id);
    byPlan.set(task.planId, ids);
  }
  return [...byPlan].map(([planId, released]) => ({
    planId,
    eventType: EVENT_TYPES.workerOffline,
    payload: { workers: [...result.offlineWorkers], released },
  }));
}
