import {
  ADMIN_RELEASE_REASON,
  allowedFrom,
  EVENT_TYPES,
  PlanNotFound,
  TaskNotFound,
  type TaskRecord,
  type TaskStatus,
  type Transition,
  targetOf,
  VersionConflict,
} from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { bumpVersion, NO_CLAIM } from "../lease.js";
import { NO_RETRY_STATE } from "../plans/reset-plan.js";
import { signalReady } from "../ready/signal-ready.js";
import type { TaskRow } from "../rows.js";
import { toTaskRecord } from "../rows.js";
import { release } from "./release.js";

/**
 * An operator's retry of one `FAILED` task (call inside a transaction): the table's `REQUEUE` edge to
 * `PENDING` with a fresh set of attempts (attempts 0), claim, retry wait, verification, work, progress
 * and fallback agent cleared, the last failure and the spend kept, as `plan reset --failed` does for
 * every failed task. Its dependencies are all `DONE` (it ran), so it is ready at once: the plan's
 * waiting claimers are signalled. Writes `RESET` `{reason: "retry_failed", mode: "task", version}`.
 * @throws {TaskNotFound} @throws {PlanNotFound}
 * @throws {VersionConflict} with the task's status and version when it is not `FAILED`.
 */
export async function resetTask(tx: Db, planId: string, taskId: string): Promise<TaskRecord> {
  await lockTask(tx, planId, taskId, "REQUEUE");
  const [row] = await tx
    .update(tasks)
    .set({ status: targetOf("REQUEUE"), ...NO_CLAIM, attempts: 0, ...NO_RETRY_STATE, ...bumpVersion() })
    .where(
      and(eq(tasks.planId, planId), eq(tasks.id, taskId), inArray(tasks.status, [...allowedFrom("REQUEUE")])),
    )
    .returning();
  if (!row) throw new Error(`task '${taskId}' changed while locked`);
  await insertEvents(tx, [
    {
      planId,
      taskId,
      eventType: EVENT_TYPES.reset,
      payload: { reason: "retry_failed", mode: "task", version: row.version },
    },
  ]);
  await signalReady(tx, [planId]);
  return toTaskRecord(row);
}

/**
 * An operator takes back one `CLAIMED` or `IN_PROGRESS` task (call inside a transaction): the worker's
 * own release, fenced on the version and holder just read under the row lock, with reason
 * `admin_release` (`RELEASE` `{version, reason, worker_id}`, `worker_id` the worker that held it). The
 * version moves on, so that worker's late heartbeat no longer renews the lease and its late complete,
 * fail or release gets 409. The attempt is not given back (the reason does not refund): it ran.
 * @throws {TaskNotFound} @throws {PlanNotFound}
 * @throws {VersionConflict} with the task's status and version when it is not held.
 */
export async function releaseTask(tx: Db, planId: string, taskId: string): Promise<TaskRecord> {
  const current = await lockTask(tx, planId, taskId, "RELEASE");
  return release(tx, {
    planId,
    taskId,
    version: current.version,
    workerId: current.claimedBy ?? "",
    reason: ADMIN_RELEASE_REASON,
  });
}

/**
 * Locks the task row and checks that `transition` may leave its status.
 * @throws {TaskNotFound} (after {@link PlanNotFound} when the plan itself is missing).
 * @throws {VersionConflict} carrying the actual status and version.
 */
async function lockTask(tx: Db, planId: string, taskId: string, transition: Transition): Promise<TaskRow> {
  const [current] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.planId, planId), eq(tasks.id, taskId)))
    .for("update");
  if (!current) {
    const [plan] = await tx.select({ id: plans.id }).from(plans).where(eq(plans.id, planId));
    if (!plan) throw new PlanNotFound(planId);
    throw new TaskNotFound(taskId, planId);
  }
  const status = current.status as TaskStatus;
  if (!allowedFrom(transition).includes(status)) {
    throw new VersionConflict(taskId, current.version, current.version, status, planId);
  }
  return current;
}
