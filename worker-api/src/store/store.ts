import type { TaskRecord, TaskStore } from "@whilly/core";
import type { NewEvent } from "./events/insert-events.js";

/** Which engine a store runs on. PGlite has one connection, so its claims never run concurrently. */
export type StoreDriver = "postgres" | "pglite";

/**
 * The `TaskStore` port plus what the control plane's background parts need: batched event writes for
 * the event buffer, and the offline-worker sweep.
 */
export interface Store extends TaskStore {
  readonly driver: StoreDriver;

  /**
   * Writes events in order in one transaction; events of plans that no longer exist are dropped and a
   * repeated `idempotencyKey` is skipped.
   * @returns how many rows were written.
   */
  appendEvents(events: readonly NewEvent[]): Promise<number>;

  /**
   * Marks workers whose last heartbeat is older than `heartbeatTimeoutMs` offline and returns every task
   * an offline worker holds to `PENDING` (`RELEASE`, reason `worker_offline`).
   */
  releaseOfflineWorkers(heartbeatTimeoutMs: number): Promise<{ workers: string[]; released: TaskRecord[] }>;
}
