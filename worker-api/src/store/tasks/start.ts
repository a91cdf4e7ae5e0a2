import { EVENT_TYPES, type TaskFence, type TaskRecord, targetOf } from "@whilly/core";
import { tasks } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { toTaskRecord } from "../rows.js";
import { fencedUpdate } from "./fence.js";

/**
 * `CLAIMED` → `IN_PROGRESS` (call inside a transaction): the agent run begins, so it counts one
 * attempt. Writes `START` `{version}`.
 * @throws {VersionConflict} @throws {NotOwner}
 */
export async function start(tx: Db, fence: TaskFence): Promise<TaskRecord> {
  const row = await fencedUpdate(tx, fence, "START", {
    status: targetOf("START"),
    attempts: sql`${tasks.attempts} + 1`,
  });
  await insertEvents(tx, [
    { planId: row.planId, taskId: row.id, eventType: EVENT_TYPES.start, payload: { version: row.version } },
  ]);
  return toTaskRecord(row);
}
