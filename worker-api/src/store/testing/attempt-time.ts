import { events } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";

/**
 * Makes a task's latest finished attempt look `seconds` long: moves its latest `CLAIM` event to that
 * long before its latest `COMPLETE` or `FAIL` event. Real attempts in a test take milliseconds; the
 * duration histogram is computed from these two timestamps.
 */
export async function setLastAttemptSeconds(
  db: Db,
  planId: string,
  taskId: string,
  seconds: number,
): Promise<void> {
  await db.execute(sql`
    UPDATE ${events} SET created_at = (
      SELECT created_at FROM ${events}
      WHERE plan_id = ${planId} AND task_id = ${taskId} AND event_type IN ('COMPLETE', 'FAIL')
      ORDER BY id DESC LIMIT 1
    ) - make_interval(secs => ${seconds}::double precision)
    WHERE id = (
      SELECT max(id) FROM ${events} WHERE plan_id = ${planId} AND task_id = ${taskId} AND event_type = 'CLAIM'
    )
  `);
}
