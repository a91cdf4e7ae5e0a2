import type { JsonObject } from "@whilly/core";
import { events } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { storableJson } from "../text.js";

/** One audit event to write. `taskId` is absent for plan-level events. */
export type NewEvent = {
  readonly planId: string;
  readonly taskId?: string | undefined;
  readonly eventType: string;
  readonly payload: JsonObject;
  readonly detail?: JsonObject | undefined;
  /** A retried write with the same key is skipped instead of duplicated. */
  readonly idempotencyKey?: string | undefined;
};

/** Rows per INSERT: nine parameters a row keeps a batch far below Postgres's 65,535-parameter limit. */
const BATCH = 1000;

/**
 * Writes events in order (ids ascend in the order given). Payload and detail strings Postgres cannot
 * hold are stored with U+FFFD in their place, since they carry agent output rather than plan content.
 * @returns how many rows were written (fewer than given when idempotency keys were already used).
 */
export async function insertEvents(db: Db, batch: readonly NewEvent[]): Promise<number> {
  let written = 0;
  for (let start = 0; start < batch.length; start += BATCH) {
    const rows = batch.slice(start, start + BATCH).map((event) => ({
      planId: event.planId,
      taskId: event.taskId ?? null,
      eventType: event.eventType,
      payload: storableJson(event.payload),
      detail: event.detail === undefined ? null : storableJson(event.detail),
      idempotencyKey: event.idempotencyKey ?? null,
    }));
    const inserted = await db
      .insert(events)
      .values(rows)
      .onConflictDoNothing({
        target: events.idempotencyKey,
        where: sql`${events.idempotencyKey} IS NOT NULL`,
      })
      .returning({ id: events.id });
    written += inserted.length;
  }
  return written;
}
