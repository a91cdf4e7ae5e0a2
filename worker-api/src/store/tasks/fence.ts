import {
  allowedFrom,
  NotOwner,
  type TaskFence,
  type TaskStatus,
  type Transition,
  VersionConflict,
} from "@whilly/core";
import { tasks } from "@whilly/schema";
import { and, eq, inArray } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Db } from "../db.js";
import { bumpVersion } from "../lease.js";
import type { TaskRow } from "../rows.js";

/**
 * Applies `transition` to the fenced task: the row must be at `fence.version`, in a status the
 * transition may leave (core's table), and claimed by `fence.workerId`. Bumps the version.
 * @returns the updated row.
 * @throws {VersionConflict} the task is gone (actual fields undefined), at another version, or in a
 *   status the transition may not leave.
 * @throws {NotOwner} version and status match but another worker (or none) holds the task.
 */
export async function fencedUpdate(
  db: Db,
  fence: TaskFence,
  transition: Transition,
  set: PgUpdateSetSource<typeof tasks>,
): Promise<TaskRow> {
  const from = allowedFrom(transition);
  const [row] = await db
    .update(tasks)
    .set({ ...set, ...bumpVersion() })
    .where(
      and(
        eq(tasks.planId, fence.planId),
        eq(tasks.id, fence.taskId),
        eq(tasks.version, fence.version),
        inArray(tasks.status, [...from]),
        eq(tasks.claimedBy, fence.workerId),
      ),
    )
    .returning();
  if (row) return row;
  throw await explainRejection(db, fence, from);
}

/**
 * Reads the task again to say why a fenced update matched no row.
 * @returns the {@link VersionConflict} or {@link NotOwner} to throw, with the task's actual fields.
 */
export async function explainRejection(
  db: Db,
  fence: TaskFence,
  from: readonly TaskStatus[],
): Promise<Error> {
  const [actual] = await db
    .select({ version: tasks.version, status: tasks.status, claimedBy: tasks.claimedBy })
    .from(tasks)
    .where(and(eq(tasks.planId, fence.planId), eq(tasks.id, fence.taskId)));
  if (!actual) return new VersionConflict(fence.taskId, fence.version, undefined, undefined, fence.planId);
  const status = actual.status as TaskStatus;
  if (actual.version !== fence.version || !from.includes(status)) {
    return new VersionConflict(fence.taskId, fence.version, actual.version, status, fence.planId);
  }
  return new NotOwner(fence.taskId, fence.workerId, actual.claimedBy ?? undefined, actual.version, status);
}
