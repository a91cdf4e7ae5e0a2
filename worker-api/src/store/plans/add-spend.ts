import { InvalidInput, MAX_MICRO_USD, type MicroUsd, PlanNotFound } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { type PlanRow, toNumeric } from "../rows.js";

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
 * Locks the plan row (`FOR NO KEY UPDATE`) in a statement of its own, for the transactions that change
 * a plan's fields or its task set (import, reset, a budget change) and so must queue behind each other
 * and behind in-flight writes of the row. Reset locks its task rows before calling this; import and
 * budget changes lock no task a finish holds (docs/claim.md gives the order). Foreign-key checks of
 * event and task inserts (`FOR KEY SHARE`) are not blocked.
 * @throws {PlanNotFound}
 */
export async function lockPlan(db: Db, planId: string): Promise<PlanRow> {
  const [row] = await db.select().from(plans).where(eq(plans.id, planId)).for("no key update");
  if (!row) throw new PlanNotFound(planId);
  return row;
}
