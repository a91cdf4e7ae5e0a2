import { EVENT_TYPES, targetOf } from "@whilly/core";
import { plans, taskDeps, tasks } from "@whilly/schema";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { bumpVersion, NO_CLAIM } from "../lease.js";
import { signalReady } from "../ready/signal-ready.js";
import { lockPlan } from "./add-spend.js";

/**
 * Resets a plan (call inside a transaction).
 * - `keep_tasks`: every task back to `PENDING` (the table's RESET edge), claims cleared, attempts 0,
 *   unfinished-dependency counters recomputed (every dependency is pending again), version bumped; one
 *   `RESET` `{reason: "manual_reset", mode: "keep_tasks", version}` per task. Earlier events stay: the log
 *   is append-only. Spend is kept, on the plan and on each task, since the money was spent; budget
 *   reservations of attempts in flight are dropped with their claims. Not-before times, last failures,
 *   verifications, work (branch and commit: a re-run replaces it), progress and fallback agents are cleared.
 * - `failed`: only `FAILED` tasks back to `PENDING` with a fresh set of attempts (attempts 0, so the
 *   task gets the plan's `max_attempts` again and never shows more attempts than that), spend kept;
 *   their dependencies are all `DONE`, so they are ready at once; the last failure is kept, so the
 *   retry's prompt still says what went wrong; one `RESET` `{reason: "retry_failed", mode: "failed",
 *   version}` each.
 * - `hard`: deletes the plan; its tasks, edges and events go with it.
 * @returns how many tasks were reset or deleted. @throws {PlanNotFound}
 */
export async function resetPlan(
  tx: Db,
  planId: string,
  mode: "keep_tasks" | "hard" | "failed",
): Promise<number> {
  // Task rows in id order, then the plan row (docs/claim.md): a finish in flight holds its task and
  // then writes the plan, so taking the plan first could wait on a task whose finish waits on us.
  if (mode !== "failed") {
    await tx
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.planId, planId))
      .orderBy(asc(tasks.id))
      .for("update");
  }
  await lockPlan(tx, planId);
  if (mode === "failed") return retryFailed(tx, planId);
  if (mode === "hard") {
    const [counted] = await tx.select({ n: count() }).from(tasks).where(eq(tasks.planId, planId));
    await tx.delete(plans).where(eq(plans.id, planId));
    return Number(counted?.n ?? 0);
  }
  const dependencyCount = tx
    .select({ n: count() })
    .from(taskDeps)
    .where(and(eq(taskDeps.planId, tasks.planId), eq(taskDeps.taskId, tasks.id)));
  const rows = await tx
    .update(tasks)
    .set({
      status: targetOf("RESET"),
      ...NO_CLAIM,
      attempts: 0,
      ...NO_RETRY_STATE,
      lastFailure: null,
      unfinishedDeps: sql`(${dependencyCount})`,
      ...bumpVersion(),
    })
    .where(eq(tasks.planId, planId))
    .returning({ id: tasks.id, version: tasks.version });
  // Every claim was cleared above, so no reservation is left in flight.
  await tx.update(plans).set({ reservedUsd: "0", reservedAttempts: 0 }).where(eq(plans.id, planId));
  // A plan with tasks has a task without dependencies (plans are acyclic), now ready again.
  return recordResets(tx, planId, rows, { reason: "manual_reset", mode: "keep_tasks" });
}

/**
 * What a reset clears besides the claim: the retry's wait, the verification, the work, the progress and
 * the fallback agent a usage limit chose (the task's own agent is tried again).
 */
export const NO_RETRY_STATE = {
  notBefore: null,
  fallbackAgent: null,
  verification: null,
  workBranch: null,
  workCommit: null,
  progress: null,
} as const;

async function retryFailed(tx: Db, planId: string): Promise<number> {
  const rows = await tx
    .update(tasks)
    .set({ status: targetOf("RESET"), ...NO_CLAIM, attempts: 0, ...NO_RETRY_STATE, ...bumpVersion() })
    .where(and(eq(tasks.planId, planId), eq(tasks.status, "FAILED")))
    .returning({ id: tasks.id, version: tasks.version });
  return recordResets(tx, planId, rows, { reason: "retry_failed", mode: "failed" });
}

/** One `RESET` event per reset task, in id order, and a ready signal; @returns how many were reset. */
async function recordResets(
  tx: Db,
  planId: string,
  rows: { id: string; version: number }[],
  why: { reason: string; mode: string },
): Promise<number> {
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await insertEvents(
    tx,
    rows.map((row) => ({
      planId,
      taskId: row.id,
      eventType: EVENT_TYPES.reset,
      payload: { ...why, version: row.version },
    })),
  );
  if (rows.length > 0) await signalReady(tx, [planId]);
  return rows.length;
}
