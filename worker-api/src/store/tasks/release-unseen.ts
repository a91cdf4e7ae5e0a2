import { EVENT_TYPES, type TaskFence, type TaskRef, targetOf } from "@whilly/core";
import { events, plans, tasks } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { LEASED } from "../lease.js";
import { rawRows, statusList } from "../raw-rows.js";
import { READY_CHANNEL, readyPayloadSql } from "../ready/signal-ready.js";

const HELD = statusList(LEASED);

/**
 * CTEs that return to `PENDING` the tasks of CTE `from` (columns `plan_id`, `id`, `started`,
 * `reserved_usd`; rows locked already, each held by `workerId`) whose claim their worker never saw: the
 * claim's reply was lost, or its client hung up. The worker never ran an agent for them, so the attempt
 * a claim with `start` counted (`started`) is given back, and so is the budget reservation the claim
 * took, on the plan row after the task rows (docs/claim.md). Writes `RELEASE` `{version, reason,
 * worker_id, attempt_returned}` per task, in id order, and signals each plan's waiting claimers. The
 * CTE `released` (`plan_id`, `id`, `version`) lists what was released; the statement's answer must
 * read `released_signal` for the signal to be sent.
 */
export function releaseUnseenCtes(from: string, workerId: string, reason: string): SQL {
  const source = sql.raw(from);
  return sql`released AS (
    UPDATE ${tasks} t SET
      status = ${targetOf("RELEASE")},
      claimed_by = NULL, claimed_at = NULL, lease_expires_at = NULL, unnamed_heartbeats = NULL,
      reserved_usd = NULL,
      attempts = t.attempts - CASE WHEN s.started AND t.attempts > 0 THEN 1 ELSE 0 END,
      version = t.version + 1,
      updated_at = now()
    FROM ${source} s
    WHERE t.plan_id = s.plan_id AND t.id = s.id AND t.status IN (${HELD}) AND t.claimed_by = ${workerId}
    RETURNING t.plan_id, t.id, t.version, s.started, s.reserved_usd
  ), released_settled AS (
    UPDATE ${plans} p SET
      reserved_usd = GREATEST(p.reserved_usd - d.settle, 0),
      reserved_attempts = GREATEST(p.reserved_attempts - d.attempts, 0)
    FROM (
      SELECT plan_id, sum(reserved_usd) AS settle, count(*)::integer AS attempts FROM released
      WHERE reserved_usd IS NOT NULL GROUP BY plan_id
    ) d
    WHERE p.id = d.plan_id
    RETURNING p.id
  ), released_events AS (
    INSERT INTO ${events} (plan_id, task_id, event_type, payload)
    SELECT r.plan_id, r.id, ${EVENT_TYPES.release}, jsonb_build_object(
      'version', r.version, 'reason', ${reason}::text, 'worker_id', ${workerId}::text,
      'attempt_returned', r.started)
    FROM released r
    ORDER BY r.plan_id, r.id
    RETURNING 1
  ), released_signal AS (
    SELECT pg_notify(${READY_CHANNEL}, ${readyPayloadSql(sql`r.plan_id`)})
    FROM (SELECT DISTINCT plan_id FROM released) r
  )`;
}

/**
 * Hands back, in one statement, a task claimed for a client that turned out to be gone before it
 * could be told (`CLAIMED`/`IN_PROGRESS` → `PENDING`, attempt given back if the claim started it,
 * `RELEASE` with `reason`; see {@link releaseUnseenCtes}). Nothing happens when the fence no longer
 * matches (another transition won): the task is then no longer this claim's to give back.
 * @returns the released task's plan and id, or `undefined` when the fence did not match.
 */
export async function releaseUnseenClaim(
  db: Db,
  fence: TaskFence & { reason: string },
): Promise<TaskRef | undefined> {
  const result = await db.execute(sql`
    WITH target AS MATERIALIZED (
      SELECT t.plan_id, t.id, t.status = ${targetOf("START")} AS started, t.reserved_usd FROM ${tasks} t
      WHERE t.plan_id = ${fence.planId} AND t.id = ${fence.taskId} AND t.version = ${fence.version}
        AND t.claimed_by = ${fence.workerId} AND t.status IN (${HELD})
      FOR UPDATE OF t
    ), ${releaseUnseenCtes("target", fence.workerId, fence.reason)}
    SELECT r.plan_id, r.id, (SELECT count(*) FROM released_events) AS logged,
      (SELECT count(*) FROM released_signal) AS signalled
    FROM released r
  `);
  const [row] = rawRows(result);
  return row ? { planId: String(row.plan_id), taskId: String(row.id) } : undefined;
}
