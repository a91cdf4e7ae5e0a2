import { EVENT_TYPES, type MicroUsd, type PlanRecord } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { signalReady } from "../ready/signal-ready.js";
import { toMicroUsd, toNumeric, toPlanRecord } from "../rows.js";
import { lockPlan } from "./add-spend.js";
import { assertAmount } from "./create-plan.js";

/**
 * Changes a plan's budget (call inside a transaction) and writes one `plan.budget_changed` event
 * `{plan_id, budget_usd_before, budget_usd}` (decimal strings, `null` for unlimited), even when the
 * amount is unchanged, so the log shows every decision. The plan row is locked first, so the change
 * queues behind in-flight finishes and the spend it is compared with is final.
 *
 * When the new budget leaves room (unlimited, or above the spend) the plan is signalled ready, so long
 * polls parked on an exhausted budget wake and claim. A later finish that crosses the new budget writes
 * a new `plan.budget_exceeded`.
 * @param budgetMicroUsd `undefined` for unlimited; 0 blocks every claim.
 * @param options.reserveMicroUsd the per-attempt reservation (docs/claim.md): `null` back to the
 *   default rule, `undefined` to leave it as it is.
 * @returns the plan before and after the change.
 * @throws {PlanNotFound} @throws {InvalidInput} for a budget out of range.
 */
export async function setPlanBudget(
  tx: Db,
  planId: string,
  budgetMicroUsd: MicroUsd | undefined,
  options: { reserveMicroUsd?: MicroUsd | null | undefined } = {},
): Promise<{ before: PlanRecord; plan: PlanRecord }> {
  const budget = budgetMicroUsd;
  assertAmount("budgetMicroUsd", budget);
  const reserve = options.reserveMicroUsd;
  assertAmount("reserveMicroUsd", reserve);
  const locked = await lockPlan(tx, planId);
  const [row] = await tx
    .update(plans)
    .set({
      budgetUsd: budget === undefined ? null : toNumeric(budget),
      ...(reserve === undefined ? {} : { reserveUsd: reserve === null ? null : toNumeric(reserve) }),
    })
    .where(eq(plans.id, planId))
    .returning();
  if (!row) throw new Error(`plan '${planId}' was locked but cannot be updated`);
  await insertEvents(tx, [
    {
      planId,
      eventType: EVENT_TYPES.planBudgetChanged,
      payload: {
        plan_id: planId,
        budget_usd_before: locked.budgetUsd === null ? null : toNumeric(toMicroUsd(locked.budgetUsd)),
        budget_usd: budget === undefined ? null : toNumeric(budget),
      },
    },
  ]);
  if (budget === undefined || toMicroUsd(row.spentUsd) < budget) await signalReady(tx, [planId]);
  return { before: toPlanRecord(locked), plan: toPlanRecord(row) };
}
