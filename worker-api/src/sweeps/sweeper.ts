import { errorSummary } from "@whilly/core";
import type { EventSink, Logger, WorkCoordinator } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { offlineEvents, plansWithReleases, runSweep, type SweepResult } from "./run-sweep.js";

/** Options of {@link startSweeper}. Durations are ms. */
export type SweeperOptions = {
  readonly withStore: <T>(use: (store: Store) => Promise<T>) => Promise<T>;
  /** Time between the end of one sweep and the start of the next. */
  readonly intervalMs: number;
  /** A worker silent for longer than this is marked offline and its tasks released. */
  readonly heartbeatTimeoutMs: number;
  /**
   * Wait before the first sweep (ms), default 0. A control plane that was down could not take
   * heartbeats, so right after it starts every worker looks silent and every lease may look expired;
   * `whilly server` waits a heartbeat timeout (or a lease, if shorter) so live workers can report in first.
   */
  readonly firstSweepDelayMs?: number | undefined;
  /** Woken for every plan that got tasks back (skipped when it hears the store's own signals). */
  readonly coordinator?: WorkCoordinator | undefined;
  /** Receives the `worker.offline` summaries. */
  readonly events?: EventSink | undefined;
  readonly log?: Logger | undefined;
};

/** A running sweep timer. */
export type Sweeper = {
  /** Sweeps now (waiting for a sweep in progress first), e.g. in tests. */
  sweepNow(): Promise<SweepResult>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
};

/**
 * Sweeps leases and workers on a timer ({@link runSweep}): once at start, then `intervalMs` after each
 * sweep ends, so sweeps never overlap. A failed sweep is logged (`sweep.failed`) and the next one runs
 * on time. Released tasks wake parked claims of their plans.
 */
export function startSweeper(options: SweeperOptions): Sweeper {
  const { log } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<SweepResult> | undefined;
  let stopped = false;

  const sweep = async (): Promise<SweepResult> => {
    const result = await options.withStore((store) => runSweep(store, options.heartbeatTimeoutMs));
    if (!options.coordinator?.listensToStore) {
      for (const planId of plansWithReleases(result)) options.coordinator?.notifyWork(planId);
    }
    const events = offlineEvents(result);
    if (events.length > 0) await options.events?.append(events);
    if (result.expired.length > 0 || result.offlineWorkers.length > 0 || result.offlineReleased.length > 0) {
      log?.("info", "sweep.released", {
        visibility_timeout: result.expired.map(taskRef),
        offline_workers: result.offlineWorkers,
        worker_offline: result.offlineReleased.map(taskRef),
      });
    }
    return result;
  };

  const sweepOnce = async (): Promise<SweepResult> => {
    while (running) await running.catch(() => {});
    running = sweep();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  };

  const tick = async () => {
    timer = undefined;
    try {
      await sweepOnce();
    } catch (error) {
      log?.("error", "sweep.failed", { error: errorSummary(error) });
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs);
  };
  timer = setTimeout(tick, options.firstSweepDelayMs ?? 0);

  return {
    sweepNow: sweepOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => {});
    },
  };
}

function taskRef(task: { planId: string; id: string }) {
  return { plan_id: task.planId, task_id: task.id };
}
