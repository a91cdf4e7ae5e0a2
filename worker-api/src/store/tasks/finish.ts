import {
  allowedFrom,
  EVENT_TYPES,
  type FinishResult,
  type JsonObject,
  type MicroUsd,
  PlanNotFound,
  type TaskFence,
  targetOf,
  VersionConflict,
} from "@whilly/core";
import { taskDeps, tasks } from "@whilly/schema";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { NO_CLAIM } from "../lease.js";
import { addSpend, assertCost, lockPlan, type PlanLock } from "../plans/add-spend.js";
import { signalReady } from "../ready/signal-ready.js";
import { toNumeric, toTaskRecord } from "../rows.js";
import { fencedUpdate } from "./fence.js";

/** How an agent run ended, as the worker reports it. */
export type Outcome =
  | { readonly transition: "COMPLETE" }
  | { readonly transition: "FAIL"; readonly reason: string };

/**
 * Ends an attempt (call inside a transaction): `CLAIMED`/`IN_PROGRESS` → `DONE` or `FAILED`, claim
 * columns cleared, `costMicroUsd` added to the task's and the plan's spend (failed runs cost money
 * too). A task finished straight from `CLAIMED` (a client that never called start) counts its attempt
 * here. `DONE` decrements the unfinished-dependency counter of every dependent; `FAILED` leaves them
 * blocked. Writes `COMPLETE` `{version, worker_id, cost_usd}` or `FAIL` `{version, worker_id, cost_usd,
 * reason}` with `detail`, then `plan.budget_exceeded` if this spend crossed the budget.
 * @throws {VersionConflict} @throws {NotOwner} @throws {InvalidInput} for a bad cost.
 */
export async function finish(
  tx: Db,
  fence: TaskFence & { costMicroUsd: MicroUsd; detail?: JsonObject | undefined },
  outcome: Outcome,
): Promise<FinishResult> {
  assertCost(fence.costMicroUsd);
  // Spend is added to the plan row below; without spend the row is only read, so finishes share it.
  await lockPlanOfTask(tx, fence, fence.costMicroUsd === 0 ? "shared" : "exclusive");
  const cost = toNumeric(fence.costMicroUsd);
  const row = await fencedUpdate(tx, fence, outcome.transition, {
    status: targetOf(outcome.transition),
    ...NO_CLAIM,
    attempts: sql`${tasks.attempts} + CASE WHEN ${tasks.status} = ${targetOf("CLAIM")} THEN 1 ELSE 0 END`,
    spentUsd: sql`${tasks.spentUsd} + ${cost}::numeric`,
  });
  if (outcome.transition === "COMPLETE") await releaseDependents(tx, fence.planId, fence.taskId);
  const payload: JsonObject = { version: row.version, worker_id: fence.workerId, cost_usd: cost };
  if (outcome.transition === "FAIL") payload.reason = outcome.reason;
  await insertEvents(tx, [
    {
      planId: row.planId,
      taskId: row.id,
      eventType: outcome.transition === "COMPLETE" ? EVENT_TYPES.complete : EVENT_TYPES.fail,
      payload,
      detail: fence.detail,
    },
  ]);
  const budgetExceeded = await addSpend(tx, fence.planId, fence.taskId, fence.costMicroUsd);
  return { task: toTaskRecord(row), budgetExceeded };
}

/**
 * {@link lockPlan} for a fenced call: a missing plan means the task is gone, which the port reports as a
 * version conflict with no actual version or status.
 */
export async function lockPlanOfTask(tx: Db, fence: TaskFence, mode: PlanLock = "exclusive"): Promise<void> {
  try {
    await lockPlan(tx, fence.planId, mode);
  } catch (error) {
    if (error instanceof PlanNotFound) {
      throw new VersionConflict(fence.taskId, fence.version, undefined, undefined, fence.planId);
    }
    throw error;
  }
}

/**
 * One dependency of each dependent of `taskId` is now `DONE`; signals the plan if one became ready.
 * Finishes of one plan run side by side (they share the plan row), so two of them decrementing the same
 * dependents must lock those rows in one order (by id), or each could hold a row the other waits for.
 * The dependents are read first and then addressed by key, which keeps both statements on the primary
 * key whatever the planner believes about a freshly imported plan.
 */
async function releaseDependents(tx: Db, planId: string, taskId: string): Promise<void> {
  const dependents = await tx
    .select({ id: taskDeps.taskId })
    .from(taskDeps)
    .where(and(eq(taskDeps.planId, planId), eq(taskDeps.dependsOn, taskId)));
  if (dependents.length === 0) return;
  const ids = dependents.map((row) => row.id);
  const byKey = () => and(eq(tasks.planId, planId), inArray(tasks.id, ids));
  const lockedInOrder = tx
    .select({ id: tasks.id })
    .from(tasks)
    .where(byKey())
    .orderBy(asc(tasks.id))
    .for("no key update");
  const counted = await tx
    .update(tasks)
    .set({ unfinishedDeps: sql`${tasks.unfinishedDeps} - 1`, updatedAt: sql`now()` })
    .where(and(byKey(), inArray(tasks.id, lockedInOrder)))
    .returning({ status: tasks.status, unfinishedDeps: tasks.unfinishedDeps });
  const claimable: readonly string[] = allowedFrom("CLAIM");
  if (counted.some((row) => row.unfinishedDeps === 0 && claimable.includes(row.status))) {
    await signalReady(tx, [planId]);
  }
}
