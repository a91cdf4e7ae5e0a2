import type { BlockedTask, TaskStatus } from "@whilly/core";
import { taskDeps, tasks } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { findBlocked } from "./blocked.js";
import { assertPlanExists } from "./read-tasks.js";

/**
 * The plan's `PENDING` tasks that wait on a `FAILED` or `SKIPPED` dependency, directly or through other
 * blocked tasks, with the root blockers of each (see {@link findBlocked}).
 * @throws {PlanNotFound}
 */
export async function listBlocked(db: Db, planId: string): Promise<BlockedTask[]> {
  await assertPlanExists(db, planId);
  const rows = await db
    .select({ id: tasks.id, status: tasks.status })
    .from(tasks)
    .where(eq(tasks.planId, planId));
  const edges = await db
    .select({ taskId: taskDeps.taskId, dependsOn: taskDeps.dependsOn })
    .from(taskDeps)
    .where(eq(taskDeps.planId, planId));
  const statuses = new Map(rows.map((row) => [row.id, row.status as TaskStatus]));
  const dependencies = new Map<string, string[]>();
  for (const edge of edges) {
    const list = dependencies.get(edge.taskId) ?? [];
    list.push(edge.dependsOn);
    dependencies.set(edge.taskId, list);
  }
  return findBlocked(statuses, dependencies);
}
