import { PlanNotFound, type TaskRecord } from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { LEASED } from "../lease.js";
import { toTaskRecord } from "../rows.js";

/** @returns the task, or `undefined` when the plan has no such task. */
export async function getTask(db: Db, planId: string, taskId: string): Promise<TaskRecord | undefined> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.planId, planId), eq(tasks.id, taskId)));
  return row && toTaskRecord(row);
}

/** @returns the plan's tasks ordered by id (byte order). @throws {PlanNotFound} */
export async function listTasks(db: Db, planId: string): Promise<TaskRecord[]> {
  await assertPlanExists(db, planId);
  const rows = await db.select().from(tasks).where(eq(tasks.planId, planId)).orderBy(asc(tasks.id));
  return rows.map(toTaskRecord);
}

/**
 * Finds which plans a task id belongs to among the tasks `workerId` holds, for protocol-v1 clients
 * that name a task without its plan. Task ids are unique per plan only, so a worker may hold the
 * same id in several plans; the caller decides what that means.
 * @returns the plan ids in byte order; empty when the worker holds no task with this id.
 */
export async function findClaimedPlans(db: Db, workerId: string, taskId: string): Promise<string[]> {
  const rows = await db
    .select({ planId: tasks.planId })
    .from(tasks)
    .where(and(eq(tasks.claimedBy, workerId), eq(tasks.id, taskId), inArray(tasks.status, [...LEASED])))
    .orderBy(asc(tasks.planId));
  return rows.map((row) => row.planId);
}

/** @throws {PlanNotFound} */
export async function assertPlanExists(db: Db, planId: string): Promise<void> {
  const [row] = await db.select({ id: plans.id }).from(plans).where(eq(plans.id, planId));
  if (!row) throw new PlanNotFound(planId);
}
