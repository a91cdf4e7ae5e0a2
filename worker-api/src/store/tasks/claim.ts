import {
  allowedFrom,
  EVENT_TYPES,
  InvalidInput,
  PlanNotFound,
  type PlanRecord,
  type TaskRecord,
  targetOf,
} from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents, type NewEvent } from "../events/insert-events.js";
import { bumpVersion, leaseUntil } from "../lease.js";
import { toMicroUsd, toPlanRecord, toTaskRecord } from "../rows.js";

/** Longest lease a claim or heartbeat may ask for: one day, in milliseconds. */
export const MAX_LEASE_MS = 86_400_000;

/** @throws {InvalidInput} unless `leaseMs` is a whole number of milliseconds in `[1, MAX_LEASE_MS]`. */
export function assertLeaseMs(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new InvalidInput("leaseMs", `lease must be 1 to ${MAX_LEASE_MS} ms; got ${leaseMs}`);
  }
}

/** A claimed task and its plan as the claim read it, for the claim's answer. */
export type ClaimedWithPlan = { readonly task: TaskRecord; readonly plan: PlanRecord };

/**
 * Claims the most urgent ready task of a plan for `workerId` (call inside a transaction): `PENDING`,
 * no unfinished dependency, plan spend strictly under its budget (a budget of 0 blocks every claim);
 * ordered by priority then id; rows another claimer holds are skipped (`FOR UPDATE SKIP LOCKED`), so
 * concurrent claimers never wait on or take the same task. Sets the lease to now + `leaseMs` by the
 * database clock and writes `CLAIM` `{worker_id, version}`. With `start`, the task goes on to
 * `IN_PROGRESS` in the same statement, counting an attempt and writing `START` `{version}` with the
 * second version bump, exactly as a separate start would (`start.ts`), so a worker that begins
 * at once costs one update and one event insert.
 * @returns the claimed task with its plan (read at the claim's budget check, so the answer needs no
 *   second read), or `undefined` when none is ready or the budget is spent.
 * @throws {PlanNotFound} @throws {InvalidInput} for a bad lease or an unregistered worker.
 */
export async function claimWithPlan(
  tx: Db,
  input: { planId: string; workerId: string; leaseMs: number; start?: boolean | undefined },
): Promise<ClaimedWithPlan | undefined> {
  assertLeaseMs(input.leaseMs);
  const [plan] = await tx.select().from(plans).where(eq(plans.id, input.planId));
  if (!plan) throw new PlanNotFound(input.planId);
  if (plan.budgetUsd !== null && toMicroUsd(plan.spentUsd) >= toMicroUsd(plan.budgetUsd)) return undefined;

  const claimable = () =>
    and(eq(tasks.planId, input.planId), inArray(tasks.status, [...allowedFrom("CLAIM")]));
  const next = tx
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(claimable(), eq(tasks.unfinishedDeps, 0)))
    .orderBy(asc(tasks.priorityRank), asc(tasks.id))
    .limit(1)
    .for("update", { skipLocked: true });
  // The scalar subquery runs once, so the update reaches its row through the primary key.
  const [row] = await tx
    .update(tasks)
    .set({
      status: input.start ? targetOf("START") : targetOf("CLAIM"),
      claimedBy: input.workerId,
      claimedAt: sql`now()`,
      leaseExpiresAt: leaseUntil(input.leaseMs),
      ...bumpVersion(),
      ...(input.start ? { version: sql`${tasks.version} + 2`, attempts: sql`${tasks.attempts} + 1` } : {}),
    })
    .where(and(claimable(), eq(tasks.id, sql`(${next})`)))
    .returning();
  if (!row) return undefined;
  const claimVersion = input.start ? row.version - 1 : row.version;
  const claimed: NewEvent[] = [
    {
      planId: row.planId,
      taskId: row.id,
      eventType: EVENT_TYPES.claim,
      payload: { worker_id: input.workerId, version: claimVersion },
    },
  ];
  if (input.start) {
    claimed.push({
      planId: row.planId,
      taskId: row.id,
      eventType: EVENT_TYPES.start,
      payload: { version: row.version },
    });
  }
  await insertEvents(tx, claimed);
  return { task: toTaskRecord(row), plan: toPlanRecord(plan) };
}

/** {@link claimWithPlan} without the plan: the `TaskStore` port's claim. */
export async function claim(
  tx: Db,
  input: { planId: string; workerId: string; leaseMs: number; start?: boolean | undefined },
): Promise<TaskRecord | undefined> {
  return (await claimWithPlan(tx, input))?.task;
}
