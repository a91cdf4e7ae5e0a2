import {
  type AttemptProgress,
  assertLeaseMs,
  type JsonObject,
  type RunningTask,
  type TaskRef,
  targetOf,
} from "@whilly/core";
import { tasks, workers } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { LEASED, leaseUntil } from "../lease.js";
import { rawRows, statusList } from "../raw-rows.js";
import { releaseUnseenCtes } from "../tasks/release-unseen.js";
import { storableJson } from "../text.js";

/**
 * Heartbeats with a task list that may leave out a task the worker holds before it is released as
 * `claim_lost`: the second one does. One is not enough, since a beat sent while the claim's reply is
 * still on its way rightly leaves the task out.
 */
export const CLAIM_LOST_AFTER_BEATS = 2;

const HELD = statusList(LEASED);

/** What a heartbeat did: `ok` false when the worker is not registered (then nothing changed). */
export type HeartbeatResult = {
  ok: boolean;
  /** The tasks whose lease was renewed, by plan then id. */
  renewed: TaskRef[];
  /** The tasks released as `claim_lost`, by plan then id. */
  released: TaskRef[];
};

/**
 * Records a heartbeat (status `online`, heartbeat now) and renews to now + `leaseMs` (database clock)
 * the leases of the tasks the worker holds: all of them, or, when `running` is given, only those it
 * names. Renewal is not a transition: versions stay, so the worker's fenced calls still match. A named
 * task's `progress` (turns, last tool, phase) is stored on it with the renewal.
 *
 * With `running` (an empty list too), a held task it leaves out counts one more unnamed heartbeat
 * since its claim; at {@link CLAIM_LOST_AFTER_BEATS} the worker evidently never got the claim's reply,
 * and the task goes back to `PENDING` with `RELEASE` `{reason: "claim_lost"}`, its attempt given back
 * if the claim started it. A task named once is never judged so again: its worker knows it, and if it
 * stops naming it the lease runs out instead. Without `running` (protocol-v1 clients) nobody is judged.
 *
 * One statement: the worker row, then the worker's task rows in id order, then the plan rows whose
 * reservations a release gives back (docs/claim.md).
 * @throws {InvalidInput} for a bad lease.
 */
export async function heartbeat(
  db: Db,
  workerId: string,
  leaseMs: number,
  running?: readonly RunningTask[],
): Promise<HeartbeatResult> {
  assertLeaseMs(leaseMs);
  const listed = running !== undefined;
  const judged = sql.raw(listed ? "true" : "false");
  const named = namedTest(running);
  const last = CLAIM_LOST_AFTER_BEATS - 1;
  const result = await db.execute(sql`
    WITH beat AS (
      UPDATE ${workers} SET status = 'online', last_heartbeat = now()
      WHERE worker_id = ${workerId}
      RETURNING worker_id
    ), held AS MATERIALIZED (
      SELECT t.plan_id, t.id, t.status = ${targetOf("START")} AS started, t.reserved_usd, ${named} AS named,
        ${judged} AND t.unnamed_heartbeats IS NOT NULL AND NOT ${named} AS unnamed,
        coalesce(t.unnamed_heartbeats >= ${last}, false) AS last_chance
      FROM ${tasks} t
      WHERE t.claimed_by = ${workerId} AND t.status IN (${HELD})
        AND EXISTS (SELECT 1 FROM beat)
      ORDER BY t.plan_id, t.id
      FOR UPDATE OF t
    ), renewed AS (
      UPDATE ${tasks} t SET lease_expires_at = ${leaseUntil(leaseMs)},
        unnamed_heartbeats = ${listed ? sql`NULL` : sql`t.unnamed_heartbeats`},
        progress = ${progressOf(running)}
      FROM held h
      WHERE t.plan_id = h.plan_id AND t.id = h.id AND h.named
      RETURNING t.plan_id, t.id
    ), counted AS (
      UPDATE ${tasks} t SET unnamed_heartbeats = t.unnamed_heartbeats + 1
      FROM held h
      WHERE t.plan_id = h.plan_id AND t.id = h.id AND h.unnamed AND NOT h.last_chance
      RETURNING t.plan_id
    ), lost AS (
      SELECT plan_id, id, started, reserved_usd FROM held WHERE unnamed AND last_chance
    ), ${releaseUnseenCtes("lost", workerId, "claim_lost")}
    SELECT 'worker' AS kind, worker_id AS plan_id, NULL AS id FROM beat
    UNION ALL SELECT 'renewed', plan_id, id FROM renewed
    UNION ALL SELECT 'released', plan_id, id FROM released
    UNION ALL SELECT 'counted', NULL, NULL FROM (SELECT count(*) FROM counted) c
    UNION ALL SELECT 'logged', NULL, NULL FROM (SELECT count(*) FROM released_events) e
    UNION ALL SELECT 'signalled', NULL, NULL FROM (SELECT count(*) FROM released_signal) s
  `);
  const rows = rawRows(result);
  const refs = (kind: string) =>
    rows
      .filter((row) => row.kind === kind)
      .map((row) => ({ planId: String(row.plan_id), taskId: String(row.id) }))
      .sort((a, b) => compare(a.planId, b.planId) || compare(a.taskId, b.taskId));
  return {
    ok: rows.some((row) => row.kind === "worker"),
    renewed: refs("renewed"),
    released: refs("released"),
  };
}

/**
 * Records liveness only (status `online`, heartbeat now): no lease renewed, no task judged.
 * @returns false when the worker is not registered.
 */
export async function touchWorker(db: Db, workerId: string): Promise<boolean> {
  const touched = await db
    .update(workers)
    .set({ status: "online", lastHeartbeat: sql`now()` })
    .where(sql`${workers.workerId} = ${workerId}`)
    .returning({ workerId: workers.workerId });
  return touched.length > 0;
}

/** The renewed row `t`'s progress: the one `running` gives for it, else what it had. */
function progressOf(running: readonly RunningTask[] | undefined): SQL {
  const given = (running ?? []).filter((r) => r.progress !== undefined);
  if (given.length === 0) return sql`t.progress`;
  const values = sql.join(
    given.map(
      (r) =>
        sql`(${r.planId}::text, ${r.taskId}::text, ${JSON.stringify(storableJson(progressJson(r.progress)))}::jsonb)`,
    ),
    sql`, `,
  );
  return sql`COALESCE((SELECT v.progress FROM (VALUES ${values}) AS v(plan_id, id, progress)
    WHERE v.plan_id = t.plan_id AND v.id = t.id LIMIT 1), t.progress)`;
}

/** The progress fields as JSON, unknown keys dropped. */
function progressJson(progress: AttemptProgress | undefined): JsonObject {
  const out: JsonObject = {};
  if (progress?.turns !== undefined) out.turns = progress.turns;
  if (progress?.last_tool !== undefined) out.last_tool = progress.last_tool;
  if (progress?.phase !== undefined) out.phase = progress.phase;
  return out;
}

/** Whether task row `t` is among `running`; every held task when no list is given. */
function namedTest(running: readonly TaskRef[] | undefined): SQL {
  if (running === undefined) return sql`true`;
  if (running.length === 0) return sql`false`;
  const values = sql.join(
    running.map((r) => sql`(${r.planId}::text, ${r.taskId}::text)`),
    sql`, `,
  );
  return sql`((t.plan_id, t.id) IN (VALUES ${values}))`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
