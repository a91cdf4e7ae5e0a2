import {
  allowedFrom,
  EVENT_TYPES,
  type JsonObject,
  TaskNotFound,
  type TaskRecord,
  type TaskStatus,
  targetOf,
  VersionConflict,
} from "@whilly/core";
import { tasks } from "@whilly/schema";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { bumpVersion, NO_CLAIM } from "../lease.js";
import { toTaskRecord } from "../rows.js";
import { settleReservations } from "./attempt-cost.js";

/**
 * Skips a task, e.g. one the decision gate rejected under `--strict` (call inside a transaction):
 * `PENDING`/`CLAIMED`/`IN_PROGRESS` → `SKIPPED`, claim cleared, a running attempt's budget reservation
 * given back. Its dependents stay blocked. Writes
 * `task.skipped` with `detail`'s keys first and then `version` and `reason`, which `detail` cannot
 * override. A task already `SKIPPED` is returned as it is, with no event.
 * @throws {TaskNotFound} @throws {VersionConflict} when the task is `DONE` or `FAILED`.
 */
export async function skipTask(
  tx: Db,
  input: { planId: string; taskId: string; reason: string; detail?: JsonObject },
): Promise<TaskRecord> {
  const [current] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.planId, input.planId), eq(tasks.id, input.taskId)))
    .for("update");
  if (!current) throw new TaskNotFound(input.taskId, input.planId);
  if (current.status === targetOf("SKIP")) return toTaskRecord(current);
  const from = allowedFrom("SKIP");
  if (!from.includes(current.status as TaskStatus)) {
    throw new VersionConflict(
      input.taskId,
      current.version,
      current.version,
      current.status as TaskStatus,
      input.planId,
    );
  }
  const [row] = await tx
    .update(tasks)
    .set({ status: targetOf("SKIP"), ...NO_CLAIM, ...bumpVersion() })
    .where(and(eq(tasks.planId, input.planId), eq(tasks.id, input.taskId), inArray(tasks.status, [...from])))
    .returning();
  if (!row) throw new Error(`task '${input.taskId}' changed while locked`);
  // The task row first (locked above), then the plan row: the lock order of docs/claim.md.
  await settleReservations(tx, [current]);
  await insertEvents(tx, [
    {
      planId: row.planId,
      taskId: row.id,
      eventType: EVENT_TYPES.taskSkipped,
      payload: { ...input.detail, version: row.version, reason: input.reason },
    },
  ]);
  return toTaskRecord(row);
}
