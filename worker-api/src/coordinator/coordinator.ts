import type { Logger, WorkCoordinator } from "../ports/index.js";
import type { ReadyListener } from "../store/ready/listener.js";
import type { Store } from "../store/store.js";
import { PlanWaiters } from "./plan-waiters.js";

/** Options of {@link startCoordinator}. Durations are ms. */
export type CoordinatorOptions = {
  /**
   * The store whose ready signals wake parked claims (Postgres LISTEN/NOTIFY, so replicas sharing a
   * database wake each other; PGlite in-process). Without one, or on a driver that cannot listen,
   * only `notifyWork` and rechecks wake them.
   */
  readonly store?: Pick<Store, "listenForReady"> | undefined;
  /**
   * Every `recheckMs`, the oldest parked claim of each plan is woken to look at the database, so a
   * lost signal only delays; its success wakes the next. One claim per plan per interval, however many
   * are parked.
   */
  readonly recheckMs: number;
  readonly log?: Logger | undefined;
};

/** The control plane's coordinator on Node: {@link WorkCoordinator} plus its lifecycle. */
export type Coordinator = WorkCoordinator & {
  /** How many claims are parked now. */
  readonly waiting: number;
  /** Stops listening and rechecking and releases every parked claim; later waits return at once. */
  close(): Promise<void>;
};

/**
 * Starts the coordinator of one control-plane process: an in-process queue of parked claims per plan
 * ({@link PlanWaiters}), woken one claim per signal by the store's ready signals, by `notifyWork`, and
 * by a recheck timer.
 * @throws whatever the first subscription attempt throws (e.g. Postgres unreachable); later
 *   connection losses are retried in the background and logged as `coordinator.listen_lost`.
 */
export async function startCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const waiters = new PlanWaiters();
  const log = options.log;
  let closed = false;
  let listener: ReadyListener | undefined;
  const listen = options.store?.listenForReady;
  if (listen) {
    listener = await listen((planId) => waiters.wake(planId, 1), {
      onError: (error) => log?.("warn", "coordinator.listen_lost", { error: describe(error) }),
    });
  }
  const recheck = setInterval(() => {
    if (waiters.size > 0) waiters.wake(undefined, 1);
  }, options.recheckMs);
  recheck.unref?.();

  return {
    listensToStore: listener !== undefined,
    rechecks: true,
    get waiting() {
      return waiters.size;
    },
    waitForWork(planId, timeoutMs, signal) {
      if (closed) return Promise.resolve();
      return waiters.wait(planId, timeoutMs, signal);
    },
    notifyWork(planId) {
      waiters.wake(planId, 1);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(recheck);
      waiters.wakeAll();
      await listener?.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
