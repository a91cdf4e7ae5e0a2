import type { EventRecord } from "@whilly/core";
import { events } from "@whilly/schema";
import { and, asc, desc, eq, gt, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { toEventRecord } from "../rows.js";

/** Default and largest page of {@link listEvents}. */
export const DEFAULT_EVENT_PAGE = 1000;
const MAX_EVENT_PAGE = 10_000;

/**
 * One plan's events with `id > afterId`, oldest first (id order is the log's order).
 * @param options.limit at most this many rows (default 1000, at most 10,000).
 */
export async function listEvents(
  db: Db,
  planId: string,
  options: { afterId?: number; limit?: number } = {},
): Promise<EventRecord[]> {
  const limit = Math.min(Math.max(1, Math.floor(options.limit ?? DEFAULT_EVENT_PAGE)), MAX_EVENT_PAGE);
  const rows = await db
    .select()
    .from(events)
    .where(and(eq(events.planId, planId), gt(events.id, options.afterId ?? 0)))
    .orderBy(asc(events.id))
    .limit(limit);
  return rows.map(toEventRecord);
}

/** Largest page of {@link listTaskEvents}. */
const MAX_TASK_EVENT_PAGE = 10_000;

/**
 * One task's latest events, oldest first: the `limit` newest (at most 10,000) of `eventTypes` when
 * given, else of every type. An unknown plan or task has none.
 */
export async function listTaskEvents(
  db: Db,
  planId: string,
  taskId: string,
  options: { limit: number; eventTypes?: readonly string[] | undefined },
): Promise<EventRecord[]> {
  const limit = Math.min(Math.max(1, Math.floor(options.limit)), MAX_TASK_EVENT_PAGE);
  const types = options.eventTypes;
  if (types !== undefined && types.length === 0) return [];
  const rows = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.planId, planId),
        eq(events.taskId, taskId),
        types === undefined ? undefined : inArray(events.eventType, [...types]),
      ),
    )
    .orderBy(desc(events.id))
    .limit(limit);
  return rows.reverse().map(toEventRecord);
}
