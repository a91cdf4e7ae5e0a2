import { InvalidInput, idProblem, MAX_MICRO_USD, type MicroUsd, type PlanRecord } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { toNumeric, toPlanRecord } from "../rows.js";
import { assertStorable } from "../text.js";

/**
 * Creates an empty plan; an existing id is left untouched, budget included.
 * No event is written: a plan's history starts with its tasks.
 * @param input.budgetMicroUsd `undefined` for unlimited; 0 blocks every claim.
 * @param input.reserveMicroUsd per-attempt reservation (docs/claim.md); `undefined` for the default.
 * @throws {InvalidInput} for an id a plan file could not hold (see `idProblem`), text Postgres cannot
 *   store, or a budget out of range.
 */
export async function createPlan(
  db: Db,
  input: {
    id: string;
    name: string;
    budgetMicroUsd?: MicroUsd | undefined;
    reserveMicroUsd?: MicroUsd | undefined;
  },
): Promise<{ created: boolean; plan: PlanRecord }> {
  assertStorable(input.id, "plan id");
  // The rule plan files follow, so a plan created here can be exported and imported again.
  const problem = idProblem(input.id);
  if (problem !== undefined) throw new InvalidInput("id", `plan id ${problem}`);
  assertStorable(input.name, "plan name");
  const budget = input.budgetMicroUsd;
  assertAmount("budgetMicroUsd", budget);
  assertAmount("reserveMicroUsd", input.reserveMicroUsd);
  const [inserted] = await db
    .insert(plans)
    .values({
      id: input.id,
      name: input.name,
      budgetUsd: budget === undefined ? null : toNumeric(budget),
      reserveUsd: input.reserveMicroUsd === undefined ? null : toNumeric(input.reserveMicroUsd),
    })
    .onConflictDoNothing({ target: plans.id })
    .returning();
  if (inserted) return { created: true, plan: toPlanRecord(inserted) };
  const [existing] = await db.select().from(plans).where(eq(plans.id, input.id));
  if (!existing) throw new Error(`plan '${input.id}' conflicted on insert but cannot be read`);
  return { created: false, plan: toPlanRecord(existing) };
}

/**
 * @throws {InvalidInput} naming `field` unless `amount` is absent or a whole number of micro-dollars in
 *   `[0, MAX_MICRO_USD]`.
 */
export function assertAmount(field: string, amount: MicroUsd | null | undefined): void {
  if (amount === undefined || amount === null) return;
  if (!Number.isSafeInteger(amount) || amount < 0 || amount > MAX_MICRO_USD) {
    throw new InvalidInput(field, `${field} must be a whole, non-negative number of micro-dollars`);
  }
}
