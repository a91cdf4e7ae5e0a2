import {
  allowedFrom,
  assertLeaseMs,
  EVENT_TYPES,
  PlanNotFound,
  type PlanRecord,
  type TaskRecord,
  targetOf,
} from "@whilly/core";
import { attemptCosts, events, plans, tasks } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { leaseUntil } from "../lease.js";
import { fromPrefixed, prefixedColumns, rawRows, statusList } from "../raw-rows.js";
import { toPlanRecord, toTaskRecord } from "../rows.js";
import { BearerNotStored, bearerHeld, type PresentedBearer } from "../workers/bearer.js";

/** What a claim asks for; `bearer`, when given, must still be stored for `workerId` (see {@link PresentedBearer}). */
export type ClaimInput = {
  planId: string;
  workerId: string;
  leaseMs: number;
  start?: boolean | undefined;
  bearer?: PresentedBearer | undefined;
};

/** A claimed task and its plan as the claim read it, for the claim's answer. */
export type ClaimedWithPlan = { readonly task: TaskRecord; readonly plan: PlanRecord };

/** How many of a plan's latest recorded attempt costs give its default reservation. */
const RESERVE_WINDOW = 20;
const CLAIMABLE = statusList(allowedFrom("CLAIM"));
const PLAN_COLUMNS = prefixedColumns(plans, "plan", "p_");
const TASK_COLUMNS = prefixedColumns(tasks, "claimed", "t_");

/**
 * Claims the most urgent ready task of a plan for `workerId`: `PENDING`, no unfinished dependency, plan
 * spend strictly under its budget (a budget of 0 blocks every claim), a retry's `not_before` passed
 * (database clock), no task of the plan in flight sharing one of its `key_files`; ordered by priority
 * then id; rows
 * another claimer holds are skipped (`FOR UPDATE SKIP LOCKED`), so concurrent claimers never wait on or
 * take the same task. Sets the lease to now + `leaseMs` by the database clock and writes `CLAIM`
 * `{worker_id, version}`. With `start`, the task goes on to `IN_PROGRESS` in the same statement,
 * counting an attempt and writing `START` `{version}` with the second version bump, exactly as a
 * separate start would (`start.ts`).
 *
 * In a plan with a budget, the claim also reserves the attempt's likely cost on the plan row, and is
 * refused when spend + reservations + this reservation would pass the budget (docs/claim.md gives the
 * reserve's rule and the lock order); a plan without a budget skips that step and never writes its row.
 *
 * The budget check, the pick, the update and the event inserts are one statement, so it is atomic
 * without a transaction of its own: a claim costs one round trip instead of six (BEGIN, plan read,
 * update, event insert, COMMIT), and round trips, one socket write each, were the control plane's
 * main cost per task. A task naming key files is claimed by a second run of the statement under the
 * plan's key-file lock, in a transaction (docs/claim.md, "Key-file locks").
 * @returns the claimed task with its plan (read in the same statement), or `undefined` when none is
 *   ready or the budget is spent.
 * @throws {BearerNotStored} when `bearer` is given and not stored for the worker (checked first:
 *   nothing is claimed, and a missing plan is not reported).
 * @throws {PlanNotFound} @throws {InvalidInput} for a bad lease or an unregistered worker.
 */
export async function claimWithPlan(db: Db, input: ClaimInput): Promise<ClaimedWithPlan | undefined> {
  assertLeaseMs(input.leaseMs);
  const first = await claimStatement(db, input, false);
  if (first !== NEEDS_LOCK) return first;
  // The most urgent ready task names key files: claim again under the plan's key-file lock, whose
  // holder commits before it lets go, so this statement's snapshot sees every keyed claim before it.
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(${KEY_FILE_LOCK_SPACE}::integer, hashtext(${input.planId}::text))`,
    );
    const locked = await claimStatement(tx, input, true);
    return locked === NEEDS_LOCK ? undefined : locked;
  });
}

/**
 * The first key of the two-key advisory lock a keyed claim takes (the second is the plan id's hash):
 * "WHLY", so whilly's locks stay apart from any other application's on the same database.
 */
const KEY_FILE_LOCK_SPACE = 0x57484c59;

/** The answer of a claim statement run without the key-file lock that picked a task naming key files. */
const NEEDS_LOCK = Symbol("needs key-file lock");

/**
 * The claim as one statement. `locked`: the caller holds the plan's key-file lock, so a task naming key
 * files may be claimed; without it such a pick claims nothing and answers {@link NEEDS_LOCK}.
 */
async function claimStatement(
  db: Db,
  input: ClaimInput,
  locked: boolean,
): Promise<ClaimedWithPlan | undefined | typeof NEEDS_LOCK> {
  const start = input.start === true;
  // CLAIM (and START) rows come from the update's RETURNING, in this order, so their ids ascend as
  // separate inserts' would. The plan CTE is read once by the pick and once by the answer.
  // A keyed task is claimed only under the lock; without it nothing below the pick writes.
  const lockHeld = locked ? sql`true` : sql`NOT picked.keyed`;
  const startEvent = start
    ? sql`, (2, ${EVENT_TYPES.start}, jsonb_build_object('version', claimed.version))`
    : sql``;
  const result = await db.execute(sql`
    WITH held AS MATERIALIZED (
      SELECT ${bearerHeld(input.bearer, input.workerId)} AS ok
    ), plan AS MATERIALIZED (
      SELECT * FROM ${plans} WHERE id = ${input.planId}
    ), picked AS MATERIALIZED (
      SELECT t.plan_id, t.id, t.key_files <> '[]'::jsonb AS keyed FROM ${tasks} t
      WHERE t.plan_id = ${input.planId} AND t.status IN (${CLAIMABLE}) AND t.unfinished_deps = 0
        AND (t.not_before IS NULL OR t.not_before <= now())
        AND (t.key_files = '[]'::jsonb OR NOT EXISTS (
          SELECT 1 FROM ${tasks} f
          WHERE f.plan_id = ${input.planId} AND f.claimed_by IS NOT NULL
            AND f.key_files ?| ARRAY(SELECT jsonb_array_elements_text(t.key_files))
        ))
        AND (SELECT ok FROM held)
        AND EXISTS (SELECT 1 FROM plan WHERE plan.budget_usd IS NULL OR plan.spent_usd < plan.budget_usd)
      ORDER BY t.priority_rank, t.id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), reserve AS MATERIALIZED (
      SELECT COALESCE(plan.reserve_usd, (
        SELECT max(recent.cost_usd) FROM (
          SELECT c.cost_usd FROM ${attemptCosts} c WHERE c.plan_id = ${input.planId}
          ORDER BY c.id DESC LIMIT ${RESERVE_WINDOW}
        ) AS recent
      )) AS amount
      FROM plan WHERE plan.budget_usd IS NOT NULL AND EXISTS (SELECT 1 FROM picked WHERE ${lockHeld})
    ), reserved AS (
      UPDATE ${plans} p SET
        reserved_usd = p.reserved_usd + COALESCE(reserve.amount, 0),
        reserved_attempts = p.reserved_attempts + 1
      FROM reserve
      WHERE p.id = ${input.planId} AND p.budget_usd IS NOT NULL AND p.spent_usd < p.budget_usd
        AND CASE WHEN reserve.amount IS NULL THEN p.reserved_attempts = 0
          ELSE p.spent_usd + p.reserved_usd + reserve.amount <= p.budget_usd END
      RETURNING COALESCE(reserve.amount, 0) AS amount
    ), claimed AS (
      UPDATE ${tasks} t SET
        status = ${start ? targetOf("START") : targetOf("CLAIM")},
        claimed_by = ${input.workerId},
        claimed_at = now(),
        lease_expires_at = ${leaseUntil(input.leaseMs)},
        reserved_usd = (SELECT amount FROM reserved),
        version = t.version + ${start ? 2 : 1}::integer,
        attempts = t.attempts + ${start ? 1 : 0}::integer,
        unnamed_heartbeats = 0,
        progress = NULL,
        updated_at = now()
      FROM picked
      WHERE t.plan_id = picked.plan_id AND t.id = picked.id AND t.status IN (${CLAIMABLE}) AND ${lockHeld}
        AND (NOT EXISTS (SELECT 1 FROM reserve) OR EXISTS (SELECT 1 FROM reserved))
      RETURNING t.*
    ), logged AS (
      INSERT INTO ${events} (plan_id, task_id, event_type, payload)
      SELECT claimed.plan_id, claimed.id, e.event_type, e.payload
      FROM claimed CROSS JOIN LATERAL (VALUES
        (1, ${EVENT_TYPES.claim}, jsonb_build_object(
          'worker_id', claimed.claimed_by, 'version', claimed.version - ${start ? 1 : 0}::integer))
        ${startEvent}
      ) AS e(ord, event_type, payload)
      ORDER BY e.ord
    )
    SELECT held.ok AS bearer_held, ${PLAN_COLUMNS}, ${TASK_COLUMNS},
      COALESCE((SELECT keyed FROM picked), false) AS keyed
    FROM held LEFT JOIN plan ON true LEFT JOIN claimed ON true
  `);
  const [raw] = rawRows(result);
  if (raw?.bearer_held !== true) throw new BearerNotStored();
  const plan = fromPrefixed(plans, raw, "p_");
  if (!plan) throw new PlanNotFound(input.planId);
  const task = fromPrefixed(tasks, raw, "t_");
  if (!task) return !locked && raw.keyed === true ? NEEDS_LOCK : undefined;
  return { task: toTaskRecord(task), plan: toPlanRecord(plan) };
}

/** {@link claimWithPlan} without the plan: the `TaskStore` port's claim. */
export async function claim(db: Db, input: ClaimInput): Promise<TaskRecord | undefined> {
  return (await claimWithPlan(db, input))?.task;
}
