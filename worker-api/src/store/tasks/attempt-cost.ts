import { EVENT_TYPES, InvalidInput, type MicroUsd, type TaskFence } from "@whilly/core";
import { attemptCosts, events, plans, tasks } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { capSpend } from "../plans/add-spend.js";
import { rawRows } from "../raw-rows.js";
import { toMicroUsd, toNumeric } from "../rows.js";

/** Longest idempotency key a report may carry, in characters. */
export const MAX_IDEMPOTENCY_KEY = 200;

/**
 * The key under which an attempt's cost is recorded once: the worker's own (prefixed so it never meets
 * a derived one), or, for a client that sends none, one derived from the fence. A fence names one attempt
 * (the version moves on with every transition), so a retried report repeats its key.
 * @throws {InvalidInput} for an empty key or one longer than {@link MAX_IDEMPOTENCY_KEY}.
 */
export function attemptKey(fence: TaskFence & { idempotencyKey?: string | undefined }): string {
  const key = fence.idempotencyKey;
  if (key === undefined) return `fence:${fence.taskId}:${fence.workerId}:${fence.version}`;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    throw new InvalidInput(
      "idempotencyKey",
      `an idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters; got ${key.length}`,
    );
  }
  return `key:${key}`;
}

/**
 * Whether `fence` names an attempt its worker really held: the task's `CLAIM` event for that worker
 * carries the fence's version (a claim) or the one before it (a claim that also started). A refused
 * report's cost counts only then, so a stale or foreign fence adds nothing.
 */
export function heldAttempt(fence: TaskFence): SQL {
  return sql`EXISTS (
    SELECT 1 FROM ${events} e
    WHERE e.plan_id = ${fence.planId} AND e.task_id = ${fence.taskId} AND e.event_type = ${EVENT_TYPES.claim}
      AND e.payload->>'worker_id' = ${fence.workerId}
      AND (e.payload->>'version') IN (${String(fence.version)}, ${String(fence.version - 1)})
  )`;
}

/**
 * The CTE `recorded`: the attempt's cost under its key, once (`ON CONFLICT DO NOTHING`), when `when`
 * holds and the task exists in the plan. @returns the fragment, to follow a `WITH` list's comma.
 */
export function recordCostCte(input: {
  planId: string;
  taskId: string;
  key: string;
  cost: string;
  when: SQL;
}): SQL {
  return sql`recorded AS (
    INSERT INTO ${attemptCosts} (plan_id, task_id, idempotency_key, cost_usd)
    SELECT ${input.planId}, ${input.taskId}, ${input.key}, ${input.cost}::numeric
    WHERE ${input.when}
      AND EXISTS (SELECT 1 FROM ${tasks} WHERE plan_id = ${input.planId} AND id = ${input.taskId})
    ON CONFLICT (plan_id, idempotency_key) DO NOTHING
    RETURNING cost_usd
  )`;
}

/**
 * The CTE `settled`: the plan row's one write of a statement that ends an attempt (docs/claim.md):
 * adds `added` (a NUMERIC expression) to the spend, saturating (see `capSpend`), notes whether that
 * addition crossed the budget (`last_spend_crossed`, computed from the row before the write), and gives
 * back `settle` of reservation held by `attempts` attempts. Writes nothing when there is neither.
 */
export function settlePlanCte(input: { planId: string; added: SQL; settle: SQL; attempts: SQL }): SQL {
  const after = capSpend(sql`p.spent_usd + d.added`);
  return sql`settled AS (
    UPDATE ${plans} p SET
      spent_usd = ${after},
      last_spend_crossed = d.added > 0 AND p.budget_usd IS NOT NULL
        AND p.spent_usd < p.budget_usd AND ${after} >= p.budget_usd,
      reserved_usd = GREATEST(p.reserved_usd - d.settle, 0),
      reserved_attempts = GREATEST(p.reserved_attempts - d.attempts, 0)
    FROM (SELECT ${input.added} AS added, ${input.settle} AS settle, ${input.attempts} AS attempts) d
    WHERE p.id = ${input.planId} AND (d.added > 0 OR d.attempts > 0)
    RETURNING p.id, p.budget_usd, p.spent_usd, p.last_spend_crossed, d.attempts AS settled_attempts
  )`;
}

/**
 * The plan side of an attempt that ended in an earlier statement of this transaction (a release): the
 * cost recorded under `key` once, added to the plan, the reservation `settle` (as the task held it; null
 * for none) given back, and `plan.budget_exceeded` written when this addition crossed the budget. Call
 * after the task row is updated: task rows before the plan row (docs/claim.md).
 * @returns true when this call crossed the budget.
 */
export async function settleOnPlan(
  tx: Db,
  input: {
    planId: string;
    taskId: string;
    key: string;
    costMicroUsd: MicroUsd;
    settle: string | null;
    /** Records the cost only when this holds (default: always). */
    when?: SQL;
  },
): Promise<boolean> {
  const cost = toNumeric(input.costMicroUsd);
  const spends = input.costMicroUsd > 0;
  const when = input.when ?? sql`true`;
  const records = spends
    ? sql`${recordCostCte({ planId: input.planId, taskId: input.taskId, key: input.key, cost, when })},`
    : sql``;
  const result = await tx.execute(sql`
    WITH ${records} ${settlePlanCte({
      planId: input.planId,
      added: spends ? sql`COALESCE((SELECT sum(cost_usd) FROM recorded), 0)` : sql`0::numeric`,
      settle: sql`COALESCE(${input.settle}::numeric, 0)`,
      attempts: input.settle === null ? sql`0` : sql`1`,
    })}, crossing AS (
      INSERT INTO ${events} (plan_id, event_type, payload)
      SELECT ${input.planId}, ${EVENT_TYPES.planBudgetExceeded}, jsonb_build_object(
        'plan_id', ${input.planId}::text, 'budget_usd', settled.budget_usd::text,
        'spent_usd', settled.spent_usd::text, 'crossing_task_id', ${input.taskId}::text,
        'reason', 'budget_threshold', 'threshold_pct', 100)
      FROM settled WHERE settled.last_spend_crossed
      RETURNING id
    )
    SELECT (SELECT count(*) FROM crossing) > 0 AS crossed
  `);
  return rawRows(result)[0]?.crossed === true;
}

/**
 * Gives back the reservations of attempts a sweep or reset ended (call after their task rows are
 * updated, in the same transaction): one write per plan, in plan id order.
 */
export async function settleReservations(
  tx: Db,
  ended: readonly { planId: string; reservedUsd: string | null }[],
): Promise<void> {
  const byPlan = new Map<string, { sum: MicroUsd; attempts: number }>();
  for (const attempt of ended) {
    if (attempt.reservedUsd === null) continue;
    const entry = byPlan.get(attempt.planId) ?? { sum: 0, attempts: 0 };
    entry.sum += toMicroUsd(attempt.reservedUsd);
    entry.attempts += 1;
    byPlan.set(attempt.planId, entry);
  }
  for (const planId of [...byPlan.keys()].sort()) {
    const entry = byPlan.get(planId) as { sum: MicroUsd; attempts: number };
    await tx.execute(
      sql`WITH ${settlePlanCte({
        planId,
        added: sql`0::numeric`,
        settle: sql`${toNumeric(entry.sum)}::numeric`,
        attempts: sql`${entry.attempts}::integer`,
      })} SELECT 1`,
    );
  }
}
