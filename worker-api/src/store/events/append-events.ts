import { PlanNotFound } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents, type NewEvent } from "./insert-events.js";

/**
 * Writes one event outside any transition (e.g. `plan.applied`).
 * @throws {PlanNotFound}
 */
export async function appendEvent(tx: Db, event: NewEvent): Promise<void> {
  const [plan] = await tx.select({ id: plans.id }).from(plans).where(eq(plans.id, event.planId));
  if (!plan) throw new PlanNotFound(event.planId);
  await insertEvents(tx, [event]);
}

/**
 * Writes a batch of events in order (call inside a transaction), for the event buffer. Events of
 * plans that no longer exist are dropped, since a hard reset deleted their history and a batch must
 * not fail for them; a repeated idempotency key is skipped, so a retried flush never duplicates.
 * @returns how many rows were written.
 */
export async function appendEvents(tx: Db, batch: readonly NewEvent[]): Promise<number> {
  if (batch.length === 0) return 0;
  const planIds = [...new Set(batch.map((event) => event.planId))];
  const existing = await tx.select({ id: plans.id }).from(plans).where(inArray(plans.id, planIds));
  const known = new Set(existing.map((row) => row.id));
  return insertEvents(
    tx,
    batch.filter((event) => known.has(event.planId)),
  );
}
