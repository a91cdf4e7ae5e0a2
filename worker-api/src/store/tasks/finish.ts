import {
  allowedFrom,
  commitIdSchema,
  EVENT_TYPES,
  type FailureReport,
  type FinishReport,
  type FinishResult,
  gitBranchNameProblem,
  InvalidInput,
  type JsonObject,
  type RetryBackoff,
  type TaskWork,
  targetOf,
  VERIFICATIONS,
  type Verification,
} from "@whilly/core";
import { events, taskDeps, tasks } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { assertCost, capSpend } from "../plans/add-spend.js";
import { fromPrefixed, prefixedColumns, rawRows, statusList } from "../raw-rows.js";
import { READY_CHANNEL, readyPayload } from "../ready/signal-ready.js";
import { toNumeric, toTaskRecord } from "../rows.js";
import { storableJson, unstorableReason } from "../text.js";
import { BearerNotStored, bearerHeld, type PresentedBearer } from "../workers/bearer.js";
import { attemptKey, heldAttempt, recordCostCte, settlePlanCte } from "./attempt-cost.js";
import { explainRejection } from "./fence.js";
import { assertBackoff, DEFAULT_BACKOFF, lastFailureJson, retryTerms } from "./retry.js";

/** What a finish names: the fence, the attempt's cost and key, its detail, and optionally the request's bearer. */
export type FinishFence = FinishReport & {
  detail?: JsonObject | undefined;
  bearer?: PresentedBearer | undefined;
};

/**
 * How an agent run ended, as the worker reports it: done (and how it was accepted), or failed (why,
 * what the next attempt is told, and the pause before it; see `retry.ts`).
 */
export type Outcome =
  | {
      readonly transition: "COMPLETE";
      readonly verification?: Verification | undefined;
      readonly work?: TaskWork | undefined;
    }
  | {
      readonly transition: "FAIL";
      readonly reason: string;
      readonly failure?: FailureReport | undefined;
      readonly backoff?: RetryBackoff | undefined;
    };

const CLAIMABLE = statusList(allowedFrom("CLAIM"));
const TASK_COLUMNS = prefixedColumns(tasks, "finished", "t_");

/**
 * Ends an attempt: `CLAIMED`/`IN_PROGRESS` → `DONE`, `FAILED`, or, for a failure with attempts left,
 * back to `PENDING` not before the retry's backoff (docs/retries.md); claim columns cleared, `costMicroUsd`
 * added to the task's and the plan's spend (failed runs cost money too), the attempt's budget reservation
 * settled. A task finished straight from `CLAIMED` (a client that never called start) counts its attempt
 * here. `DONE` stores the verification and the work (branch and commit) and decrements the
 * unfinished-dependency counter of every dependent, signalling the plan when one became ready; a failure
 * leaves them blocked and keeps the attempt's failure as the task's `last_failure`. Writes `COMPLETE`
 * `{version, worker_id, cost_usd}` (plus `branch` and `commit` when the work was reported) or
 * `FAIL` `{version, worker_id, cost_usd, reason, attempt, retry, max_attempts, not_before}` with
 * `detail`, then `plan.budget_exceeded` if this spend crossed the budget.
 *
 * The cost is recorded under the attempt's idempotency key (see `attemptKey`) at most once, whether or
 * not the fence holds: a report that meets a lost lease (409) still counts its cost on the plan, and a
 * retried report counts nothing again.
 *
 * All of it is one statement (see {@link finishStatement}), atomic without a transaction of its own;
 * only a rejected fence costs a second read, to say why.
 * @returns the finished task, and whether this finish's spend crossed the plan's budget.
 * @throws {BearerNotStored} when `fence.bearer` is given and not stored for the worker (nothing changed).
 * @throws {VersionConflict} @throws {NotOwner} @throws {InvalidInput} for a bad cost, key, verification
 *   or work (a branch that is empty, too long or unstorable; a commit that is not a commit id).
 */
export async function finish(db: Db, fence: FinishFence, outcome: Outcome): Promise<FinishResult> {
  assertCost(fence.costMicroUsd);
  if (outcome.transition === "FAIL") assertBackoff(outcome.backoff ?? DEFAULT_BACKOFF);
  if (outcome.transition === "COMPLETE") {
    assertVerification(outcome.verification);
    assertWork(outcome.work);
  }
  const key = attemptKey(fence);
  const [raw] = rawRows(await db.execute(finishStatement(fence, key, outcome)));
  if (raw?.bearer_held !== true) throw new BearerNotStored();
  const row = fromPrefixed(tasks, raw, "t_");
  if (!row) throw await explainRejection(db, fence, allowedFrom(outcome.transition));
  return { task: toTaskRecord(row), budgetExceeded: raw.crossed === true };
}

/**
 * The finish as one statement, its steps chained through their RETURNING rows so that each runs only
 * after (and only if) the one before it did. Locks follow docs/claim.md's order: task rows first (this
 * attempt's, then its dependents in id order), the plan row last and in one write.
 *
 * 0. `held`: the presented bearer is still stored for the worker (true without one); every write
 *    below hangs on it.
 * 1. `finished`: the fenced update (version, status and owner; no row when any differs), addressed by
 *    primary key; it clears the reservation and returns the one it held (`settled_usd`, read from the
 *    row as the statement began: only a claim sets it, and the fence proves the same attempt).
 * 2. `logged`: the `COMPLETE`/`FAIL` event, its version from the update.
 * 3. COMPLETE only, when the task has dependents: `dependents` locks them in id order (two finishes
 *    sharing dependents would otherwise each hold a row the other waits for), `counted` decrements
 *    their counters, and `signalled` runs the one `pg_notify` when one became claimable.
 * 4. With spend only: `recorded` keeps the cost under the attempt's key, once, even when the fence
 *    was refused.
 * 5. `settled`: the plan row's one write: the recorded cost added (saturating, see `capSpend`) and the
 *    reservation given back. Writing the row once, rather than locking it and then updating it, is
 *    what keeps this statement out of deadlocks with the claims' foreign-key locks (docs/claim.md).
 *    `crossing` writes `plan.budget_exceeded` when the write noted the crossing; it reads `logged`,
 *    so its event's id follows the transition's. `room` signals the plan when the reservation given
 *    back may let a claim refused for lack of room in the budget through.
 */
function finishStatement(fence: FinishFence, key: string, outcome: Outcome): SQL {
  const cost = toNumeric(fence.costMicroUsd);
  const payload: JsonObject = { worker_id: fence.workerId, cost_usd: cost };
  if (outcome.transition === "FAIL") payload.reason = outcome.reason;
  if (outcome.transition === "COMPLETE" && outcome.work !== undefined) {
    payload.branch = outcome.work.branch;
    payload.commit = outcome.work.commit;
  }
  const detail = fence.detail === undefined ? null : JSON.stringify(storableJson(fence.detail));
  const complete = outcome.transition === "COMPLETE";
  const spends = fence.costMicroUsd > 0;
  const ends = endColumns(fence, outcome);
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
  const records = spends
    ? sql`, ${recordCostCte({
        planId: fence.planId,
        taskId: fence.taskId,
        key,
        cost,
        when: sql`(SELECT ok FROM held)
        AND CASE WHEN EXISTS (SELECT 1 FROM finished) THEN true ELSE ${heldAttempt(fence)} END`,
      })}`
    : sql``;
  const added = spends ? sql`COALESCE((SELECT sum(cost_usd) FROM recorded), 0)` : sql`0::numeric`;
  return sql`
    WITH held AS MATERIALIZED (
      SELECT ${bearerHeld(fence.bearer, fence.workerId)} AS ok
    ), finished AS (
      UPDATE ${tasks} t SET
        ${ends.set},
        claimed_by = NULL, claimed_at = NULL, lease_expires_at = NULL, reserved_usd = NULL, progress = NULL,
        attempts = t.attempts + CASE WHEN t.status = ${targetOf("CLAIM")} THEN 1 ELSE 0 END,
        spent_usd = ${capSpend(sql`t.spent_usd + ${cost}::numeric`)},
        version = t.version + 1,
        updated_at = now()
      FROM ${tasks} began
      WHERE t.plan_id = ${fence.planId} AND t.id = ${fence.taskId} AND t.version = ${fence.version}::integer
        AND t.status IN (${statusList(allowedFrom(outcome.transition))}) AND t.claimed_by = ${fence.workerId}
        AND (SELECT ok FROM held)
        AND began.plan_id = t.plan_id AND began.id = t.id
      RETURNING t.*, began.reserved_usd AS settled_usd, ${ends.returning}
    ), logged AS (
      INSERT INTO ${events} (plan_id, task_id, event_type, payload, detail)
      SELECT finished.plan_id, finished.id, ${complete ? EVENT_TYPES.complete : EVENT_TYPES.fail},
        jsonb_build_object('version', finished.version) || ${JSON.stringify(storableJson(payload))}::jsonb
          ${ends.payload},
        ${detail}::jsonb
      FROM finished
      RETURNING id
    ) ${releases} ${ends.signal} ${records}, ${settlePlanCte({
      planId: fence.planId,
      added,
      settle: sql`COALESCE((SELECT settled_usd FROM finished), 0)`,
      attempts: sql`(SELECT count(*) FROM finished WHERE settled_usd IS NOT NULL)`,
    })}, crossing AS (
      INSERT INTO ${events} (plan_id, event_type, payload)
      SELECT ${fence.planId}, ${EVENT_TYPES.planBudgetExceeded}, jsonb_build_object(
        'plan_id', ${fence.planId}::text, 'budget_usd', settled.budget_usd::text,
        'spent_usd', settled.spent_usd::text, 'crossing_task_id', ${fence.taskId}::text,
        'reason', 'budget_threshold', 'threshold_pct', 100)
      FROM settled, (SELECT count(*) FROM logged) AS after_transition
      WHERE settled.last_spend_crossed
      RETURNING id
    ), room AS (
      SELECT pg_notify(${READY_CHANNEL}, ${readyPayload(fence.planId)}) FROM settled
      WHERE settled.settled_attempts > 0 AND settled.spent_usd < settled.budget_usd
    )
    SELECT held.ok AS bearer_held, ${TASK_COLUMNS},
      ${complete ? sql`(SELECT count(*) FROM signalled) > 0` : sql`(SELECT count(*) FROM retry_signalled) > 0`} AS signalled,
      (SELECT count(*) FROM crossing) > 0 AS crossed,
      (SELECT count(*) FROM room) > 0 AS room
    FROM held LEFT JOIN finished ON true
  `;
}

/**
 * The outcome's own columns of the `finished` update (`t` is the row before it), what its RETURNING
 * adds for the event, and, for a failure, the ready signal of a retry claimable at once.
 */
function endColumns(
  fence: FinishFence,
  outcome: Outcome,
): { set: SQL; returning: SQL; payload: SQL; signal: SQL } {
  if (outcome.transition === "COMPLETE") {
    return {
      set: sql`status = ${targetOf("COMPLETE")}, not_before = NULL, verification = ${outcome.verification ?? null},
        work_branch = ${outcome.work?.branch ?? null}, work_commit = ${outcome.work?.commit ?? null}`,
      returning: sql`NULL AS attempt`,
      payload: sql``,
      signal: sql``,
    };
  }
  const retry = retryTerms(fence.planId, outcome.backoff ?? DEFAULT_BACKOFF);
  return {
    set: sql`status = CASE WHEN ${retry.retried} THEN ${targetOf("RETRY")} ELSE ${targetOf("FAIL")} END,
      not_before = ${retry.notBefore},
      verification = NULL,
      last_failure = ${lastFailureJson(outcome.failure, retry.attempt, fence.workerId, outcome.reason)}`,
    returning: sql`(t.last_failure->>'attempt')::integer AS attempt, ${retry.limit} AS max_allowed`,
    payload: sql`|| jsonb_build_object('attempt', finished.attempt,
          'retry', finished.status = ${targetOf("RETRY")}, 'max_attempts', finished.max_allowed,
          'not_before', to_char(finished.not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    signal: sql`, retry_signalled AS (
        SELECT pg_notify(${READY_CHANNEL}, ${readyPayload(fence.planId)}) FROM finished
        WHERE finished.status = ${targetOf("RETRY")} AND finished.unfinished_deps = 0
          AND finished.not_before <= now()
      )`,
  };
}

function assertVerification(value: Verification | undefined): void {
  if (value === undefined || VERIFICATIONS.includes(value)) return;
  throw new InvalidInput(
    "verification",
    `verification must be one of ${VERIFICATIONS.join(", ")}; got '${value}'`,
  );
}

/** A reported work's branch and commit as the protocol takes them (`branchNameSchema`, `commitIdSchema`). */
function assertWork(work: TaskWork | undefined): void {
  if (work === undefined) return;
  const { branch } = work;
  const problem = gitBranchNameProblem(branch);
  const reason =
    branch.length < 1 || branch.length > 256
      ? "must be 1 to 256 characters"
      : problem === undefined
        ? unstorableReason(branch)
        : `is not a git branch name: it ${problem}`;
  if (reason !== undefined) throw new InvalidInput("branch", `branch ${reason}`);
  if (!commitIdSchema.safeParse(work.commit).success) {
    throw new InvalidInput("commit", "commit must be a commit id: 40 or 64 lowercase hex digits");
  }
}
