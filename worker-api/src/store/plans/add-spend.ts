import { EVENT_TYPES, InvalidInput, MAX_MICRO_USD, type MicroUsd, PlanNotFound } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { toMicroUsd, toNumeric } from "../rows.js";

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
 * Adds `cost` to the plan's spend and, when this addition takes spend from under the budget to at or
 * over it, writes the one `plan.budget_exceeded` event of that crossing (spec section 10). The
 * `UPDATE` holds the plan row until commit, so concurrent finishes add up exactly and see each
 * other's sums: only one of them can observe the crossing.
 * @returns true when this call crossed the budget.
 */
export async function addSpend(db: Db, planId: string, taskId: string, cost: MicroUsd): Promise<boolean> {
  if (cost === 0) return false;
  const [row] = await db
    .update(plans)
    .set({ spentUsd: sql`${plans.spentUsd} + ${toNumeric(cost)}::numeric` })
    .where(eq(plans.id, planId))
    .returning({ budgetUsd: plans.budgetUsd, spentUsd: plans.spentUsd });
  if (!row) throw new PlanNotFound(planId);
  if (row.budgetUsd === null) return false;
  const budget = toMicroUsd(row.budgetUsd);
  const spent = toMicroUsd(row.spentUsd);
  const crossed = spent - cost < budget && spent >= budget;
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
export async function lockPlan(
  db: Db,
  planId: string,
  mode: PlanLock = "exclusive",
): Promise<typeof plans.$inferSelect> {
  const [row] = await db
    .select()
    .from(plans)
    .where(eq(plans.id, planId))
    .for(mode === "exclusive" ? "no key update" : "share");
  if (!row) throw new PlanNotFound(planId);
  return row;
}
