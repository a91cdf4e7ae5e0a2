import {
  allowedFrom,
  EVENT_TYPES,
  InvalidInput,
  PlanNotFound,
  type TaskRecord,
  targetOf,
} from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { bumpVersion, leaseUntil } from "../lease.js";
import { toMicroUsd, toTaskRecord } from "../rows.js";
import { start } from "./start.js";

/** Longest lease a claim or heartbeat may ask for: one day, in milliseconds. */
export const MAX_LEASE_MS = 86_400_000;

/** @throws {InvalidInput} unless `leaseMs` is a whole number of milliseconds in `[1, MAX_LEASE_MS]`. */
export function assertLeaseMs(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new InvalidInput("leaseMs", `lease must be 1 to ${MAX_LEASE_MS} ms; got ${leaseMs}`);
  }
}

/**
 * Claims the most urgent ready task of a plan for `workerId` (call inside a transaction): `PENDING`,
 * no unfinished dependency, plan spend strictly under its budget (a budget of 0 blocks every claim);
 * ordered by priority then id; rows another claimer holds are skipped (`FOR UPDATE SKIP LOCKED`), so
 * concurrent claimers never wait on or take the same task. Sets the lease to now + `leaseMs` by the
 * database clock and writes `CLAIM` `{worker_id, version}`; with `start`, goes on to `IN_PROGRESS` in
 * the same transaction (see {@link start}).
 * @returns the claimed task, or `undefined` when none is ready or the budget is spent.
 * @throws {PlanNotFound} @throws {InvalidInput} for a bad lease or an unregistered worker.
 */
export async function claim(
  tx: Db,
  input: { planId: string; workerId: string; leaseMs: number; start?: boolean | undefined },
): Promise<TaskRecord | undefined> {
  assertLeaseMs(input.leaseMs);
  const [plan] = await tx
    .select({ budgetUsd: plans.budgetUsd, spentUsd: plans.spentUsd })
    .from(plans)
    .where(eq(plans.id, input.planId));
  if (!plan) throw new PlanNotFound(input.planId);
  if (plan.budgetUsd !== null && toMicroUsd(plan.spentUsd) >= toMicroUsd(plan.budgetUsd)) return undefined;

  const [picked] = await tx
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.planId, input.planId),
        inArray(tasks.status, [...allowedFrom("CLAIM")]),
        eq(tasks.unfinishedDeps, 0),
      ),
    )
    .orderBy(asc(tasks.priorityRank), asc(tasks.id))
    .limit(1)
    .for("update", { skipLocked: true });
  if (!picked) return undefined;

  const [row] = await tx
    .update(tasks)
    .set({
      status: targetOf("CLAIM"),
      claimedBy: input.workerId,
      claimedAt: sql`now()`,
      leaseExpiresAt: leaseUntil(input.leaseMs),
      ...bumpVersion(),
    })
    .where(
      and(
        eq(tasks.planId, input.planId),
        eq(tasks.id, picked.id),
        inArray(tasks.status, [...allowedFrom("CLAIM")]),
      ),
    )
    .returning();
  if (!row) throw new Error(`claimed task '${picked.id}' vanished while locked`);
  await insertEvents(tx, [
    {
      planId: row.planId,
      taskId: row.id,
      eventType: EVENT_TYPES.claim,
      payload: { worker_id: input.workerId, version: row.version },
    },
  ]);
  const claimed = toTaskRecord(row);
  if (!input.start) return claimed;
  return start(tx, { planId: row.planId, taskId: row.id, workerId: input.workerId, version: row.version });
}
