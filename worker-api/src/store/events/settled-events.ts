import type { EventRecord } from "@whilly/core";
import { events } from "@whilly/schema";
import { and, asc, desc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { toEventRecord } from "../rows.js";

/**
 * A position in the audit log's delivery order `(xid, id)`: just after event `id`, written by the
 * transaction `xid` (decimal text of an `xid8`). `{xid: "0", id: 0}` is before every event.
 */
export type EventCursor = { readonly xid: string; readonly id: number };

/** The cursor before every event. */
export const LOG_START: EventCursor = { xid: "0", id: 0 };

/** An audit event with its place in the delivery order. */
export type SettledEvent = EventRecord & { readonly cursor: EventCursor };

/**
 * Only events of transactions older than every transaction still open: those are final, and any event
 * committed later belongs to a transaction at or above this bound, so it sorts after all of them.
 */
const settled: SQL = sql`${events.xid} < pg_snapshot_xmin(pg_current_snapshot())`;

/**
 * Events after `after` in delivery order `(xid, id)`, settled ones only (see {@link settled}).
 *
 * Why not id order: ids come from a sequence before commit, so a transaction can commit id 7 while
 * another still holds id 6; a reader that moved past 7 would never see 6. A transaction that is open
 * when this reads has an xid at or above the snapshot's xmin, so its events are left for a later read
 * and then sort after everything delivered now. The price: a transaction left open anywhere on the
 * server (any database: xids are server-wide) holds delivery back until it ends.
 * @param options.planId one plan's events; all plans' when absent.
 * @param options.limit at most this many rows (1 or more).
 */
export async function readSettledEvents(
  db: Db,
  after: EventCursor,
  options: { planId?: string | undefined; limit: number },
): Promise<SettledEvent[]> {
  const rows = await db
    .select({ row: events, xid: sql<string>`${events.xid}::text` })
    .from(events)
    .where(
      and(
        options.planId === undefined ? undefined : eq(events.planId, options.planId),
        sql`(${events.xid}, ${events.id}) > (${after.xid}::xid8, ${after.id}::bigint)`,
        settled,
      ),
    )
    .orderBy(asc(events.xid), asc(events.id))
    .limit(Math.max(1, Math.floor(options.limit)));
  return rows.map(({ row, xid }) => ({ ...toEventRecord(row), cursor: { xid, id: row.id } }));
}

/**
 * The cursor just after event `afterId`, for a reader resuming from an event id (SSE `Last-Event-ID`):
 * that event's own place. For an id that is not stored (a deleted plan's, or one never written) it is
 * the place of the latest stored event below it (of `planId` when given), or the log's start.
 */
export async function cursorAfterEvent(db: Db, afterId: number, planId?: string): Promise<EventCursor> {
  if (afterId <= 0) return LOG_START;
  const [row] = await db
    .select({ xid: sql<string>`${events.xid}::text` })
    .from(events)
    .where(and(lte(events.id, afterId), planId === undefined ? undefined : eq(events.planId, planId)))
    .orderBy(desc(events.id))
    .limit(1);
  return { xid: row?.xid ?? "0", id: afterId };
}

/** The cursor after the last settled event (of `planId` when given): where a reader of new events starts. */
export async function settledHead(db: Db, planId?: string): Promise<EventCursor> {
  const [row] = await db
    .select({ id: events.id, xid: sql<string>`${events.xid}::text` })
    .from(events)
    .where(and(planId === undefined ? undefined : eq(events.planId, planId), settled))
    .orderBy(desc(events.xid), desc(events.id))
    .limit(1);
  return row ? { xid: row.xid, id: row.id } : LOG_START;
}
