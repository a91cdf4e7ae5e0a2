import {
  allowedFrom,
  EVENT_TYPES,
  type FinishResult,
  type JsonObject,
  type MicroUsd,
  PlanNotFound,
  type TaskFence,
  targetOf,
  VersionConflict,
} from "@whilly/core";
import { events, plans, taskDeps, tasks } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { assertCost, capSpend, lockPlan, type PlanLock } from "../plans/add-spend.js";
import { fromPrefixed, prefixedColumns, rawRows, statusList } from "../raw-rows.js";
import { READY_CHANNEL, readyPayload } from "../ready/signal-ready.js";
import { type PlanRow, toNumeric, toTaskRecord } from "../rows.js";
import { storableJson } from "../text.js";
import { BearerNotStored, bearerHeld, type PresentedBearer } from "../workers/bearer.js";
import { explainRejection } from "./fence.js";

/** What a finish names: the fence, the attempt's cost, its detail, and optionally the request's bearer. */
export type FinishFence = TaskFence & {
  costMicroUsd: MicroUsd;
  detail?: JsonObject | undefined;
  bearer?: PresentedBearer | undefined;
};

/** How an agent run ended, as the worker reports it. */
export type Outcome =
  | { readonly transition: "COMPLETE" }
  | { readonly transition: "FAIL"; readonly reason: string };

const CLAIMABLE = statusList(allowedFrom("CLAIM"));
const TASK_COLUMNS = prefixedColumns(tasks, "finished", "t_");

/**
 * Ends an attempt: `CLAIMED`/`IN_PROGRESS` → `DONE` or `FAILED`, claim columns cleared, `costMicroUsd`
 * added to the task's and the plan's spend (failed runs cost money too). A task finished straight from
 * `CLAIMED` (a client that never called start) counts its attempt here. `DONE` decrements the
 * unfinished-dependency counter of every dependent and signals the plan when one became ready; `FAILED`
 * leaves them blocked. Writes `COMPLETE` `{version, worker_id, cost_usd}` or `FAIL` `{version,
 * worker_id, cost_usd, reason}` with `detail`, then `plan.budget_exceeded` if this spend crossed the
 * budget.
 *
 * All of it is one statement (see {@link finishStatement}), atomic without a transaction of its own;
 * only a rejected fence costs a second read, to say why.
 * @returns the finished task, and whether this finish's spend crossed the plan's budget.
 * @throws {BearerNotStored} when `fence.bearer` is given and not stored for the worker (nothing changed).
 * @throws {VersionConflict} @throws {NotOwner} @throws {InvalidInput} for a bad cost.
 */
export async function finish(db: Db, fence: FinishFence, outcome: Outcome): Promise<FinishResult> {
  assertCost(fence.costMicroUsd);
  const [raw] = rawRows(await db.execute(finishStatement(fence, outcome)));
  if (raw?.bearer_held !== true) throw new BearerNotStored();
  const row = fromPrefixed(tasks, raw, "t_");
  if (!row) throw await explainRejection(db, fence, allowedFrom(outcome.transition));
  return { task: toTaskRecord(row), budgetExceeded: raw.crossed === true };
}

/**
 * The finish as one statement, its steps chained through their RETURNING rows so that each runs only
 * after (and only if) the one before it did:
 *
 * 0. `held`: the presented bearer is still stored for the worker (true without one); every write
 *    below hangs on the plan lock, which hangs on it.
 * 1. `plan`: the plan row's lock, first, as every operation on a plan's tasks takes it (see
 *    {@link lockPlan}): shared without spend, since the row is then only read and finishes may run
 *    side by side; exclusive with spend, which it adds below.
 * 2. `finished`: the fenced update (version, status and owner; no row when any differs), addressed
 *    by primary key and joined to `plan` so that it runs only once the plan is held.
 * 3. `logged`: the `COMPLETE`/`FAIL` event, its version from the update.
 * 4. COMPLETE only, when the task has dependents: `dependents` locks them in id order (two finishes
 *    sharing dependents would otherwise each hold a row the other waits for), `counted` decrements
 *    their counters (a row changed since the statement began is re-read at its latest version), and
 *    `signalled` runs the one `pg_notify` when one became claimable.
 * 5. With spend only: `spent` adds it to the plan and `crossing` writes `plan.budget_exceeded` when
 *    this addition took spend from under the budget (as the lock read it: a locking read returns the
 *    row's latest version) to at or over it; the exclusive lock makes concurrent finishes add up in
 *    turn, so only one of them can see the crossing. It reads `logged`, so its event's id follows the
 *    transition's. Amounts are `NUMERIC(14,6)` as text, the form `toNumeric` gives; both the task's
 *    and the plan's sums saturate at the column's maximum instead of failing (see `capSpend`), which
 *    is why the crossing compares with the locked read rather than subtracting the cost.
 */
function finishStatement(fence: FinishFence, outcome: Outcome): SQL {
  const cost = toNumeric(fence.costMicroUsd);
  const payload: JsonObject = { worker_id: fence.workerId, cost_usd: cost };
  if (outcome.transition === "FAIL") payload.reason = outcome.reason;
  const detail = fence.detail === undefined ? null : JSON.stringify(storableJson(fence.detail));
  const complete = outcome.transition === "COMPLETE";
  const spends = fence.costMicroUsd > 0;
  const releases = complete
    ? sql`, dependents AS MATERIALIZED (
        SELECT t.plan_id, t.id FROM ${tasks} t
        WHERE t.plan_id = ${fence.planId} AND EXISTS (SELECT 1 FROM finished)
          AND t.id IN (SELECT d.task_id FROM ${taskDeps} d WHERE d.plan_id = ${fence.planId} AND d.depends_on = ${fence.taskId})
        ORDER BY t.id
        FOR NO KEY UPDATE
      ), counted AS (
        UPDATE ${tasks} t SET unfinished_deps = t.unfinished_deps - 1, updated_at = now()
        FROM dependents
        WHERE t.plan_id = dependents.plan_id AND t.id = dependents.id
        RETURNING t.status, t.unfinished_deps
      ), signalled AS (
        SELECT pg_notify(${READY_CHANNEL}, ${readyPayload(fence.planId)}) FROM (
          SELECT 1 FROM counted WHERE counted.unfinished_deps = 0 AND counted.status IN (${CLAIMABLE}) LIMIT 1
        ) AS ready
      )`
    : sql``;
  const adds = spends
    ? sql`, spent AS (
        UPDATE ${plans} p SET spent_usd = ${capSpend(sql`p.spent_usd + ${cost}::numeric`)}
        FROM finished WHERE p.id = ${fence.planId}
        RETURNING p.spent_usd
      ), crossing AS (
        INSERT INTO ${events} (plan_id, event_type, payload)
        SELECT ${fence.planId}, ${EVENT_TYPES.planBudgetExceeded}, jsonb_build_object(
          'plan_id', ${fence.planId}::text, 'budget_usd', plan.budget_usd::text,
          'spent_usd', spent.spent_usd::text, 'crossing_task_id', ${fence.taskId}::text,
          'reason', 'budget_threshold', 'threshold_pct', 100)
        FROM plan, spent, (SELECT count(*) FROM logged) AS after_transition
        WHERE plan.budget_usd IS NOT NULL
          AND plan.spent_usd < plan.budget_usd AND spent.spent_usd >= plan.budget_usd
        RETURNING id
      )`
    : sql``;
  return sql`
    WITH held AS MATERIALIZED (
      SELECT ${bearerHeld(fence.bearer, fence.workerId)} AS ok
    ), plan AS MATERIALIZED (
      SELECT id, budget_usd, spent_usd FROM ${plans} WHERE id = ${fence.planId} AND (SELECT ok FROM held)
      ${spends ? sql`FOR NO KEY UPDATE` : sql`FOR SHARE`}
    ), finished AS (
      UPDATE ${tasks} t SET
        status = ${targetOf(outcome.transition)},
        claimed_by = NULL, claimed_at = NULL, lease_expires_at = NULL,
        attempts = t.attempts + CASE WHEN t.status = ${targetOf("CLAIM")} THEN 1 ELSE 0 END,
        spent_usd = ${capSpend(sql`t.spent_usd + ${cost}::numeric`)},
        version = t.version + 1,
        updated_at = now()
      FROM plan
      WHERE t.plan_id = ${fence.planId} AND t.id = ${fence.taskId} AND t.version = ${fence.version}::integer
        AND t.status IN (${statusList(allowedFrom(outcome.transition))}) AND t.claimed_by = ${fence.workerId}
      RETURNING t.*
    ), logged AS (
      INSERT INTO ${events} (plan_id, task_id, event_type, payload, detail)
      SELECT finished.plan_id, finished.id, ${complete ? EVENT_TYPES.complete : EVENT_TYPES.fail},
        jsonb_build_object('version', finished.version) || ${JSON.stringify(storableJson(payload))}::jsonb,
        ${detail}::jsonb
      FROM finished
      RETURNING id
    ) ${releases} ${adds}
    SELECT held.ok AS bearer_held, ${TASK_COLUMNS},
      ${complete ? sql`(SELECT count(*) FROM signalled) > 0` : sql`false`} AS signalled,
      ${spends ? sql`(SELECT count(*) FROM crossing) > 0` : sql`false`} AS crossed
    FROM held LEFT JOIN finished ON true
  `;
}

/**
 * {@link lockPlan} for a fenced call: a missing plan means the task is gone, which the port reports as a
 * version conflict with no actual version or status.
 * @returns the plan row as the lock read it.
 */
export async function lockPlanOfTask(
  tx: Db,
  fence: TaskFence,
  mode: PlanLock = "exclusive",
): Promise<PlanRow> {
  try {
    return await lockPlan(tx, fence.planId, mode);
  } catch (error) {
    if (error instanceof PlanNotFound) {
      throw new VersionConflict(fence.taskId, fence.version, undefined, undefined, fence.planId);
    }
    throw error;
  }
}
