import { InvalidInput, MAX_MAX_ATTEMPTS, PlanNotFound, type PlanRecord } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { toPlanRecord } from "../rows.js";

/**
 * Sets the plan's attempts per task (`whilly run --max-attempts`): tasks without their own
 * `max_attempts` get this many from their next failure on; `undefined` means the default (3). One
 * `UPDATE` of the plan row, which locks no task (docs/claim.md's order holds).
 * @returns the plan after. @throws {PlanNotFound}
 * @throws {InvalidInput} unless `maxAttempts` is an integer from 1 to `MAX_MAX_ATTEMPTS`.
 */
export async function setPlanMaxAttempts(
  db: Db,
  planId: string,
  maxAttempts: number | undefined,
): Promise<PlanRecord> {
  assertMaxAttempts("maxAttempts", maxAttempts);
  const [row] = await db
    .update(plans)
    .set({ maxAttempts: maxAttempts ?? null })
    .where(eq(plans.id, planId))
    .returning();
  if (!row) throw new PlanNotFound(planId);
  return toPlanRecord(row);
}

/** @throws {InvalidInput} naming `field` unless `value` is undefined or an integer 1..`MAX_MAX_ATTEMPTS`. */
export function assertMaxAttempts(field: string, value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > MAX_MAX_ATTEMPTS) {
    throw new InvalidInput(
      field,
      `${field} must be a whole number from 1 to ${MAX_MAX_ATTEMPTS}; got ${value}`,
    );
  }
}
