import { EVENT_TYPES, type TaskRecord, targetOf } from "@whilly/core";
import { tasks } from "@whilly/schema";
import { and, asc, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { bumpVersion, LEASED, NO_CLAIM } from "../lease.js";
import { signalReady } from "../ready/signal-ready.js";
import { toTaskRecord } from "../rows.js";
import { settleReservations } from "../tasks/attempt-cost.js";

/** Rows per UPDATE: two parameters a row. */
const BATCH = 1000;

/**
 * Returns to `PENDING` every leased task matching `condition` (call inside a transaction), with one
 * `RELEASE` `{reason, version, worker_id}` each, `worker_id` naming the worker that lost the task.
 * Rows another transaction holds (a finish in flight) are skipped: that transaction decides their fate.
 * The released attempts' budget reservations are given back on their plans' rows, after the task rows.
 * Signals every plan that got a task back, so its waiting claimers wake.
 * @returns the released tasks, by plan and id.
 */
export async function releaseWhere(tx: Db, condition: SQL, reason: string): Promise<TaskRecord[]> {
  const held = await tx
    .select({
      planId: tasks.planId,
      id: tasks.id,
      claimedBy: tasks.claimedBy,
      reservedUsd: tasks.reservedUsd,
    })
    .from(tasks)
    .where(and(inArray(tasks.status, [...LEASED]), condition))
    .orderBy(asc(tasks.planId), asc(tasks.id))
    .for("update", { skipLocked: true });
  const released: TaskRecord[] = [];
  for (let i = 0; i < held.length; i += BATCH) {
    const chunk = held.slice(i, i + BATCH);
    const keys = sql.join(
      chunk.map((row) => sql`(${row.planId}, ${row.id})`),
      sql`, `,
    );
    const rows = await tx
      .update(tasks)
      .set({ status: targetOf("RELEASE"), ...NO_CLAIM, ...bumpVersion() })
      .where(and(sql`(${tasks.planId}, ${tasks.id}) IN (${keys})`, inArray(tasks.status, [...LEASED])))
      .returning();
    released.push(...rows.map(toTaskRecord));
  }
  // Task rows first, then each plan row once: the lock order of docs/claim.md. A row the update no
  // longer matched (finished meanwhile) was settled by its finish.
  const releasedKeys = new Set(released.map((task) => `${task.planId}\u0000${task.id}`));
  await settleReservations(
    tx,
    held.filter((row) => releasedKeys.has(`${row.planId}\u0000${row.id}`)),
  );
  released.sort((a, b) => compare(a.planId, b.planId) || compare(a.id, b.id));
  const ownerOf = new Map(held.map((row) => [`${row.planId}\u0000${row.id}`, row.claimedBy]));
  await insertEvents(
    tx,
    released.map((task) => ({
      planId: task.planId,
      taskId: task.id,
      eventType: EVENT_TYPES.release,
      payload: {
        reason,
        version: task.version,
        worker_id: ownerOf.get(`${task.planId}\u0000${task.id}`) ?? null,
      },
    })),
  );
  await signalReady(
    tx,
    released.map((task) => task.planId),
  );
  return released;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
