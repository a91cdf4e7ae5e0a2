import { EVENT_TYPES, InvalidInput, MAX_MICRO_USD, type MicroUsd, PlanNotFound } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { type PlanRow, toMicroUsd, toNumeric } from "../rows.js";

/**
 * Checks an attempt's cost before any write.
 * @throws {InvalidInput} unless `cost` is a whole number of micro-dollars in `[0, MAX_MICRO_USD]`.
 */
export function assertCost(cost: MicroUsd): void {
  if (!Number.isSafeInteger(cost) || cost < 0 || cost > MAX_MICRO_USD) {
    throw new InvalidInput(
      "costMicroUsd",
      `cost must be a whole, non-negative number of micro-dollars; got ${cost}`,
    );
  }
}

/**
 * `sum`, held at {@link MAX_MICRO_USD}, the most a `NUMERIC(14,6)` spend column stores. Every spend
 * addition goes through it: spend saturates rather than failing the transition, since by the time a
 * cost is reported the agent has run and the money is spent, and a refused finish would leave the task
 * claimed, to be run (and paid for) again. A saturated plan is at or over any budget it can have
 * (budgets have the same maximum), so its claims stop; the transition's event keeps the cost as
 * reported.
 */
export function capSpend(sum: SQL): SQL<string> {
  return sql<string>`LEAST(${sum}, ${toNumeric(MAX_MICRO_USD)}::numeric)`;
}

/**
 * Adds `cost` to the plan's spend (saturating, see {@link capSpend}) and, when this addition takes
 * spend from under the budget to at or over it, writes the one `plan.budget_exceeded` event of that
 * crossing (spec section 10). Pass the plan row as {@link lockPlan} read it (exclusive) in this
 * transaction: the lock makes concurrent additions run in turn, so only one can see the crossing, and
 * the locked row's spend is the spend before this addition (with saturation, the sum alone no longer
 * tells).
 * @returns true when this call crossed the budget.
 * @throws {PlanNotFound} when the plan row is gone.
 */
export async function addSpend(db: Db, locked: PlanRow, taskId: string, cost: MicroUsd): Promise<boolean> {
  if (cost === 0) return false;
  const planId = locked.id;
  const [row] = await db
    .update(plans)
    .set({ spentUsd: capSpend(sql`${plans.spentUsd} + ${toNumeric(cost)}::numeric`) })
    .where(eq(plans.id, planId))
    .returning({ spentUsd: plans.spentUsd });
  if (!row) throw new PlanNotFound(planId);
  if (locked.budgetUsd === null) return false;
  const budget = toMicroUsd(locked.budgetUsd);
  const spent = toMicroUsd(row.spentUsd);
  const crossed = toMicroUsd(locked.spentUsd) < budget && spent >= budget;
  if (crossed) {
    await insertEvents(db, [
      {
        planId,
        eventType: EVENT_TYPES.planBudgetExceeded,
        payload: {
          plan_id: planId,
          budget_usd: toNumeric(budget),
          spent_usd: toNumeric(spent),
          crossing_task_id: taskId,
          reason: "budget_threshold",
          threshold_pct: 100,
        },
      },
    ]);
  }
  return crossed;
}

/**
 * How a transaction holds the plan row. `exclusive` (`FOR NO KEY UPDATE`): it changes the plan's spend
 * or its task set (import, reset, a finish that adds spend), so it queues behind every other holder.
 * `shared` (`FOR SHARE`): a finish that adds no spend changes no plan column and only needs import and
 * reset kept out, so such finishes run side by side instead of committing one at a time.
 */
export type PlanLock = "exclusive" | "shared";

/**
 * Takes the plan row's lock first, so that operations changing a plan's spend or its task set
 * (finishes, import, reset) queue on one row and never deadlock on each other's task rows. Neither
 * mode blocks the foreign-key checks of event and task inserts (they take `FOR KEY SHARE`).
 * A transaction never upgrades a shared lock, since two sharers upgrading would deadlock.
 * @throws {PlanNotFound}
 */
export async function lockPlan(db: Db, planId: string, mode: PlanLock = "exclusive"): Promise<PlanRow> {
  const [row] = await db
    .select()
    .from(plans)
    .where(eq(plans.id, planId))
    .for(mode === "exclusive" ? "no key update" : "share");
  if (!row) throw new PlanNotFound(planId);
  return row;
}
