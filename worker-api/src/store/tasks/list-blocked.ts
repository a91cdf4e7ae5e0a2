import { type BlockedTask, blockedTasks, type TaskStatus } from "@whilly/core";
import { taskDeps, tasks } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { assertPlanExists } from "./read-tasks.js";

/**
 * The plan's `PENDING` tasks that wait on a `FAILED` or `SKIPPED` dependency, directly or through other
 * blocked tasks, with the root blockers of each. The store only reads the plan's statuses and edges;
 * the rule and the id order are core's `blockedTasks`, so the store never disagrees with core's DAG.
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
  const dependencies = new Map<string, string[]>();
  for (const edge of edges) {
    const list = dependencies.get(edge.taskId);
    if (list === undefined) dependencies.set(edge.taskId, [edge.dependsOn]);
    else list.push(edge.dependsOn);
  }
  return blockedTasks(
    rows.map((row) => ({
      id: row.id,
      status: row.status as TaskStatus,
      dependencies: dependencies.get(row.id) ?? [],
    })),
  );
}
