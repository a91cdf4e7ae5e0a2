import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";

/**
 * The Postgres channel on which the store announces that a plan may have a newly ready task. The
 * payload is the plan id; the empty payload means "some plan" (see {@link signalReady}).
 */
export const READY_CHANNEL = "whilly_task_ready";

/**
 * The channel on which the database announces committed audit events (a trigger on `events`, once per
 * transaction and plan). The payload is the plan id, or empty for "any plan".
 */
export const EVENTS_CHANNEL = "whilly_events";

/** Postgres refuses NOTIFY payloads of 8000 bytes or more, which would abort the transaction. */
const MAX_PAYLOAD_BYTES = 7999;

/**
 * Announces plans that may have a newly ready task (call inside the transaction that made it ready):
 * one `pg_notify` per plan, delivered to listeners only if the transaction commits, so a rolled-back
 * write wakes nobody. Postgres takes a global lock at the commit of a notifying transaction, so call
 * it only when something became ready, never per audit row. A plan id too long for a payload goes
 * out as the empty payload, which listeners read as "any plan".
 */
export async function signalReady(tx: Db, planIds: Iterable<string>): Promise<void> {
  const payloads = [...new Set([...planIds].map(readyPayload))];
  if (payloads.length === 0) return;
  const values: SQL = sql.join(
    payloads.map((payload) => sql`(${payload})`),
    sql`, `,
  );
  await tx.execute(sql`SELECT pg_notify(${READY_CHANNEL}, p.id) FROM (VALUES ${values}) AS p(id)`);
}

/** {@link readyPayload} for a plan id the statement itself holds (a column or expression). */
export function readyPayloadSql(planId: SQL): SQL {
  return sql`CASE WHEN octet_length(${planId}) > ${MAX_PAYLOAD_BYTES} THEN '' ELSE ${planId} END`;
}

/** The payload announcing `planId`: the id, or the empty "any plan" payload when it is too long for one. */
export function readyPayload(planId: string): string {
  return new TextEncoder().encode(planId).length > MAX_PAYLOAD_BYTES ? "" : planId;
}
