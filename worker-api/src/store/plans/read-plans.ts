import { type PlanRecord, type PlanSummary, TASK_STATUSES, type TaskStatus } from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { asc, count, eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { toPlanRecord } from "../rows.js";

/** @returns the plan, or `undefined` when no plan has this id. */
export async function getPlan(db: Db, planId: string): Promise<PlanRecord | undefined> {
  const [row] = await db.select().from(plans).where(eq(plans.id, planId));
  return row && toPlanRecord(row);
}

/**
 * @param ref a canonical `owner/repo/N` (core's `parseGithubIssueRef`).
 * @returns the plan made from this GitHub issue, or `undefined` when none was.
 */
export async function findPlanByIssueRef(db: Db, ref: string): Promise<PlanRecord | undefined> {
  const [row] = await db.select().from(plans).where(eq(plans.githubIssueRef, ref));
  return row && toPlanRecord(row);
}

/** Every plan, by id, with its tasks counted by status (every status present, zeros included). */
export async function listPlans(db: Db): Promise<PlanSummary[]> {
  const rows = await db.select().from(plans).orderBy(asc(plans.id));
  const counted = await db
    .select({ planId: tasks.planId, status: tasks.status, n: count() })
    .from(tasks)
    .groupBy(tasks.planId, tasks.status);
  const byPlan = new Map<string, Record<TaskStatus, number>>();
  for (const row of counted) {
    let counts = byPlan.get(row.planId);
    if (!counts) {
      counts = emptyCounts();
      byPlan.set(row.planId, counts);
    }
    counts[row.status as TaskStatus] = Number(row.n);
  }
  return rows.map((row) => {
    const counts = byPlan.get(row.id) ?? emptyCounts();
    const taskCount = Object.values(counts).reduce((sum, n) => sum + n, 0);
    return { ...toPlanRecord(row), taskCount, counts };
  });
}

function emptyCounts(): Record<TaskStatus, number> {
  return Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<TaskStatus, number>;
}
