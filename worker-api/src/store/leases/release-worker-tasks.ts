import { InvalidInput, type TaskRecord } from "@whilly/core";
import { tasks, workers } from "@whilly/schema";
import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { before } from "../lease.js";
import { releaseWhere } from "./release-where.js";

/**
 * Returns every task `workerId` holds, in any plan, to `PENDING` (call inside a transaction), with
 * `RELEASE` `{reason, version, worker_id}`. For a worker known to be gone, e.g. an earlier local run
 * (`reason: "worker_offline"`).
 * @param options.silentForMs release only when the worker's last heartbeat is older than this many
 *   milliseconds by the database clock (a worker without a row counts as silent); otherwise nothing
 *   changes. The worker row is locked first, so a heartbeat racing this call either lands before it
 *   (and keeps the tasks) or after it (and renews nothing).
 * @returns the released tasks.
 * @throws {InvalidInput} for a negative or fractional `silentForMs`.
 */
export async function releaseWorkerTasks(
  tx: Db,
  workerId: string,
  reason: string,
  options: { silentForMs?: number | undefined } = {},
): Promise<TaskRecord[]> {
  const { silentForMs } = options;
  if (silentForMs !== undefined) {
    if (!Number.isSafeInteger(silentForMs) || silentForMs < 0) {
      throw new InvalidInput(
        "silentForMs",
        `silentForMs must be a whole, non-negative number of milliseconds; got ${silentForMs}`,
      );
    }
    const [worker] = await tx
      .select({ silent: sql<boolean>`${workers.lastHeartbeat} < ${before(silentForMs)}` })
      .from(workers)
      .where(eq(workers.workerId, workerId))
      .for("update");
    if (worker && !worker.silent) return [];
  }
  return releaseWhere(tx, eq(tasks.claimedBy, workerId), reason);
}

/**
 * The offline sweep (call inside a transaction): workers whose last heartbeat is older than
 * `heartbeatTimeoutMs` become `offline`, and every task an offline worker claimed more than
 * `heartbeatTimeoutMs` ago goes back to `PENDING` with `RELEASE` `{reason: "worker_offline", version,
 * worker_id}` (a task it claimed since it fell silent waits until it too is that old). A later heartbeat brings the
 * worker back online; its old tasks stay released (its fenced calls on them get a version conflict).
 * @returns the workers marked offline now, and the released tasks.
 */
export async function releaseOfflineWorkers(
  tx: Db,
  heartbeatTimeoutMs: number,
): Promise<{ workers: string[]; released: TaskRecord[] }> {
  const marked = await tx
    .update(workers)
    .set({ status: "offline" })
    .where(and(eq(workers.status, "online"), lt(workers.lastHeartbeat, before(heartbeatTimeoutMs))))
    .returning({ workerId: workers.workerId });
  const offline = tx.select({ id: workers.workerId }).from(workers).where(eq(workers.status, "offline"));
  // A claim is a sign of life too: a worker marked offline that claims again (its heartbeat timer
  // lagged, or its interval is longer than the timeout) keeps that task for one timeout at least.
  const silent = and(
    sql`${tasks.claimedBy} IN (${offline})`,
    lt(tasks.claimedAt, before(heartbeatTimeoutMs)),
  );
  const released = await releaseWhere(tx, silent ?? sql`false`, "worker_offline");
  return { workers: marked.map((row) => row.workerId).sort(), released };
}
