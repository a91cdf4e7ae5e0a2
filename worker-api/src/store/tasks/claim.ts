import {
  allowedFrom,
  assertLeaseMs,
  type ClaimedTask,
  type ClaimRouting,
  type DependencyWork,
  EVENT_TYPES,
  PlanNotFound,
  type PlanRecord,
  targetOf,
} from "@whilly/core";
import { attemptCosts, events, plans, tasks, workerPauses, workers } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { leaseUntil } from "../lease.js";
import { fromPrefixed, prefixedColumns, rawRows, statusList } from "../raw-rows.js";
import { toPlanRecord, toTaskRecord } from "../rows.js";
import { BearerNotStored, bearerHeld, type PresentedBearer } from "../workers/bearer.js";
import { EVERY_WORKER } from "../workers/pause.js";
import { lockKeyFiles } from "./key-file-locks.js";
import { attemptModel, effectiveAgent, type Routing, routingOf, runnable, textArray } from "./routing.js";
import { EVENT_COST_KEY_PREFIX } from "./task-event.js";

/** What a claim asks for; `bearer`, when given, must still be stored for `workerId` (see {@link PresentedBearer}). */
export type ClaimInput = ClaimRouting & {
  planId: string;
  workerId: string;
  leaseMs: number;
  start?: boolean | undefined;
  bearer?: PresentedBearer | undefined;
};

/** A claimed task (with its dependencies' work) and its plan as the claim read it, for the claim's answer. */
export type ClaimedWithPlan = { readonly task: ClaimedTask; readonly plan: PlanRecord };

/** How many of a plan's latest recorded attempt costs give its default reservation. */
const RESERVE_WINDOW = 20;
const CLAIMABLE = statusList(allowedFrom("CLAIM"));
const PLAN_COLUMNS = prefixedColumns(plans, "plan", "p_");
const TASK_COLUMNS = prefixedColumns(tasks, "claimed", "t_");

/**
 * Claims the most urgent ready task of a plan for `workerId`: `PENDING`, no unfinished dependency, plan
 * spend strictly under its budget (a budget of 0 blocks every claim), a retry's `not_before` passed
 * (database clock), a task the worker can run (its agent, chosen as `chooseAgent` does from the
 * worker's `--force-agent`, the task's fallback agent, the task's, the plan's and the worker's
 * `--agent`, among `input.capabilities.agents`; its `required_tags` within `input.capabilities.tags`;
 * both filters of the pick, so the claim-order index is still walked once and skipped rows cost a
 * filter test each), no task of the plan in flight sharing one of its `key_files`; ordered by priority
 * then id; rows another claimer holds are skipped (`FOR UPDATE SKIP LOCKED`), so concurrent claimers
 * never wait on or take the same task. Sets the lease to now + `leaseMs` by the database clock and
 * writes `CLAIM` `{worker_id, version}`. With `start`, the task goes on to `IN_PROGRESS` in the same
 * statement, counting an attempt and writing `START` `{version}` with the second version bump, exactly
 * as a separate start would (`start.ts`). Both events' detail is the attempt's `{agent, model}` (model
 * left out for the agent's default), which the answer carries as `task.choice`. The worker's row keeps
 * the capabilities and choice it claimed with (see {@link capabilitiesSeen}).
 *
 * In a plan with a budget, the claim also reserves the attempt's likely cost on the plan row, and is
 * refused when spend + reservations + this reservation would pass the budget (docs/claim.md gives the
 * reserve's rule and the lock order); a plan without a budget skips that step and never writes its row.
 *
 * The budget check, the pick, the update and the event inserts are one statement, so it is atomic
 * without a transaction of its own: a claim costs one round trip instead of six (BEGIN, plan read,
 * update, event insert, COMMIT), and round trips, one socket write each, were the control plane's
 * main cost per task. When the pick names key files, that statement claims nothing and reports the
 * files; the claim then runs in a transaction that takes one advisory lock per (plan, file) for them,
 * in ascending key order ({@link lockKeyFiles}), and runs the statement again, now allowed to claim a
 * task whose key files are all locked (or one with none). When it finds only a keyed task outside the
 * locked files, it tries again with that task's files, at most {@link KEY_FILE_ROUNDS} times, then
 * answers `undefined` (nothing ready this time; the long poll rechecks). Claims of tasks with disjoint
 * key files take disjoint locks and never wait on each other (docs/claim.md, "Key-file locks").
 * The same statement reads the claimed task's dependencies' work (see {@link dependencyWorkSql}), and
 * finds nothing for a worker an operator paused (see {@link unpaused}).
 * @returns the claimed task with its dependencies' work and its plan (read in the same statement), or
 *   `undefined` when none is ready or the budget is spent.
 * @throws {BearerNotStored} when `bearer` is given and not stored for the worker (checked first:
 *   nothing is claimed, and a missing plan is not reported).
 * @throws {PlanNotFound} @throws {InvalidInput} for a bad lease or an unregistered worker.
 */
export async function claimWithPlan(db: Db, input: ClaimInput): Promise<ClaimedWithPlan | undefined> {
  assertLeaseMs(input.leaseMs);
  const routing = routingOf(input);
  let answer = await claimStatement(db, input, routing, undefined);
  for (let round = 0; round < KEY_FILE_ROUNDS && isNeedsLocks(answer); round++) {
    const files = answer.files;
    // Each round locks the files it needs from scratch, in key order: adding a lock to those already
    // held could wait in another order than a concurrent claim and deadlock.
    answer = await db.transaction(async (tx) => {
      await lockKeyFiles(tx, input.planId, files);
      return claimStatement(tx, input, routing, files);
    });
  }
  return isNeedsLocks(answer) ? undefined : answer;
}

/**
 * How many times a claim takes key-file locks before it answers nothing: a second round is needed
 * only when the task it locked for was taken meanwhile and the next ready one names other files.
 */
const KEY_FILE_ROUNDS = 3;

/** A claim statement that claimed nothing because the task to claim names `files`, not all locked. */
type NeedsLocks = { readonly needsLocks: true; readonly files: readonly string[] };

function isNeedsLocks(answer: ClaimedWithPlan | NeedsLocks | undefined): answer is NeedsLocks {
  return answer !== undefined && "needsLocks" in answer;
}

/**
 * The claim as one statement. `locked`: the key files whose locks the caller holds, or `undefined`
 * when it holds none. Without locks the pick is the most urgent ready task, claimed only if it names
 * no key file, else reported as {@link NeedsLocks}. With locks the pick is the most urgent ready task
 * naming no key file or only locked ones; when there is none, the most urgent ready task naming
 * another file is reported as {@link NeedsLocks}.
 */
async function claimStatement(
  db: Db,
  input: ClaimInput,
  routing: Routing,
  locked: readonly string[] | undefined,
): Promise<ClaimedWithPlan | NeedsLocks | undefined> {
  const start = input.start === true;
  const lockedFiles = locked === undefined ? undefined : JSON.stringify(locked);
  const claimable = (t: SQL) =>
    lockedFiles === undefined ? sql`true` : sql`(${t}.key_files <@ ${lockedFiles}::jsonb)`;
  // CLAIM (and START) rows come from the update's RETURNING, in this order, so their ids ascend as
  // separate inserts' would. The plan CTE is read once by the pick and once by the answer.
  // Without locks, nothing below the pick writes for a keyed task.
  const lockHeld = lockedFiles === undefined ? sql`NOT picked.keyed` : sql`true`;
  // The files the next round must lock: the keyed pick's (no locks held), or, when the locked files
  // let nothing be picked, the most urgent ready task's outside them.
  const wanted =
    lockedFiles === undefined
      ? sql`(SELECT key_files FROM picked WHERE keyed)`
      : sql`(SELECT n.key_files FROM ${tasks} n
          WHERE NOT EXISTS (SELECT 1 FROM picked) AND ${ready(sql`n`, input.planId, routing)}
            AND NOT (n.key_files <@ ${lockedFiles}::jsonb)
          ORDER BY n.priority_rank, n.id LIMIT 1)`;
  // The attempt's agent, and its model when one was chosen (none: the agent's default).
  const choice = sql`jsonb_strip_nulls(jsonb_build_object('agent', claimed.attempt_agent, 'model', claimed.attempt_model))`;
  const startEvent = start
    ? sql`, (2, ${EVENT_TYPES.start}, jsonb_build_object('version', claimed.version), ${choice})`
    : sql``;
  const planAgent = sql`(SELECT plan.agent FROM plan)`;
  const agent = effectiveAgent(sql`t`, planAgent, routing.choice);
  const model = attemptModel(
    sql`t`,
    { agent: planAgent, model: sql`(SELECT plan.model FROM plan)` },
    routing.choice,
    agent,
  );
  const result = await db.execute(sql`
    WITH seen AS (
      ${capabilitiesSeen(input, routing)}
    ), held AS MATERIALIZED (
      SELECT ${bearerHeld(input.bearer, input.workerId)} AS ok, (SELECT count(*) FROM seen) AS seen,
        ${unpaused(input.workerId)} AS unpaused
    ), plan AS MATERIALIZED (
      SELECT * FROM ${plans} WHERE id = ${input.planId}
    ), picked AS MATERIALIZED (
      SELECT t.plan_id, t.id, t.key_files, t.key_files <> '[]'::jsonb AS keyed,
        ${agent} AS picked_agent, ${model} AS picked_model
      FROM ${tasks} t
      WHERE ${ready(sql`t`, input.planId, routing)} AND ${claimable(sql`t`)}
      ORDER BY t.priority_rank, t.id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), reserve AS MATERIALIZED (
      SELECT COALESCE(plan.reserve_usd, (
        SELECT max(recent.cost_usd) FROM (
          SELECT c.cost_usd FROM ${attemptCosts} c WHERE c.plan_id = ${input.planId}
            AND c.idempotency_key NOT LIKE ${`${EVENT_COST_KEY_PREFIX}%`}
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
      RETURNING t.*, picked.picked_agent AS attempt_agent, picked.picked_model AS attempt_model
    ), logged AS (
      INSERT INTO ${events} (plan_id, task_id, event_type, payload, detail)
      SELECT claimed.plan_id, claimed.id, e.event_type, e.payload, e.detail
      FROM claimed CROSS JOIN LATERAL (VALUES
        (1, ${EVENT_TYPES.claim}, jsonb_build_object(
          'worker_id', claimed.claimed_by, 'version', claimed.version - ${start ? 1 : 0}::integer), ${choice})
        ${startEvent}
      ) AS e(ord, event_type, payload, detail)
      ORDER BY e.ord
    )
    SELECT held.ok AS bearer_held, ${PLAN_COLUMNS}, ${TASK_COLUMNS}, ${wanted} AS wanted_files,
      claimed.attempt_agent, claimed.attempt_model, ${dependencyWorkSql} AS dependency_work
    FROM held LEFT JOIN plan ON true LEFT JOIN claimed ON true
  `);
  const [raw] = rawRows(result);
  if (raw?.bearer_held !== true) throw new BearerNotStored();
  const plan = fromPrefixed(plans, raw, "p_");
  if (!plan) throw new PlanNotFound(input.planId);
  const task = fromPrefixed(tasks, raw, "t_");
  if (task) {
    const dependencyWork = toDependencyWork(raw.dependency_work);
    const choice = {
      agent: String(raw.attempt_agent),
      model: typeof raw.attempt_model === "string" ? raw.attempt_model : undefined,
    };
    return { task: { ...toTaskRecord(task), dependencyWork, choice }, plan: toPlanRecord(plan) };
  }
  if (raw.wanted_files === null || raw.wanted_files === undefined) return undefined;
  // Decoded as the column decodes it: drivers differ in how they hand back jsonb.
  return { needsLocks: true, files: tasks.keyFiles.mapFromDriverValue(raw.wanted_files) as string[] };
}

/**
 * The pick's conditions on task `t` of plan `planId`, bar the key-file locks: claimable status, no
 * unfinished dependency, a retry's `not_before` passed, a task the worker can run ({@link runnable}),
 * no task of the plan in flight sharing a key file, the bearer held, the worker not paused and the
 * budget not spent.
 */
function ready(t: SQL, planId: string, routing: Routing): SQL {
  return sql`${t}.plan_id = ${planId} AND ${t}.status IN (${CLAIMABLE}) AND ${t}.unfinished_deps = 0
    AND (${t}.not_before IS NULL OR ${t}.not_before <= now())
    AND ${runnable(t, sql`(SELECT plan.agent FROM plan)`, routing)}
    AND (${t}.key_files = '[]'::jsonb OR NOT EXISTS (
      SELECT 1 FROM ${tasks} f
      WHERE f.plan_id = ${planId} AND f.claimed_by IS NOT NULL
        AND f.key_files ?| ARRAY(SELECT jsonb_array_elements_text(${t}.key_files))
    ))
    AND (SELECT ok FROM held) AND (SELECT unpaused FROM held)
    AND EXISTS (SELECT 1 FROM plan WHERE plan.budget_usd IS NULL OR plan.spent_usd < plan.budget_usd)`;
}

/**
 * True unless an operator paused the worker (`worker_pauses`: every worker, or this one): a primary-key
 * probe of a table of at most a few rows, so the claim stays one cheap statement. A paused worker's
 * claim finds nothing and long-polls as with nothing ready; its running task is not affected.
 */
function unpaused(workerId: string): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM ${workerPauses} wp WHERE wp.scope IN (${EVERY_WORKER}, ${workerId}))`;
}

/**
 * The claimed task's dependencies that hold work, as a jsonb array of `{task_id, branch, commit}` in the
 * order of its `dependencies` (a repeated id counts at its first place); `[]` when none, or nothing was
 * claimed. A subquery of the claim's answer, so it costs primary-key reads of the one claimed task's
 * dependencies and no round trip.
 */
const dependencyWorkSql = sql`COALESCE((
  SELECT jsonb_agg(jsonb_build_object('task_id', w.id, 'branch', w.work_branch, 'commit', w.work_commit)
    ORDER BY w.ord)
  FROM (
    SELECT d.id, d.work_branch, d.work_commit, min(dep.ord) AS ord
    FROM jsonb_array_elements_text(claimed.dependencies) WITH ORDINALITY AS dep(id, ord)
    JOIN ${tasks} d ON d.plan_id = claimed.plan_id AND d.id = dep.id
    WHERE d.work_commit IS NOT NULL
    GROUP BY d.id, d.work_branch, d.work_commit
  ) AS w
), '[]'::jsonb)`;

/** The decoded {@link dependencyWorkSql} column. */
function toDependencyWork(value: unknown): DependencyWork[] {
  // Decoded as a jsonb column decodes it: drivers differ in how they hand back jsonb.
  const items = tasks.extra.mapFromDriverValue(value) as unknown as {
    task_id: string;
    branch: string;
    commit: string;
  }[];
  return items.map((item) => ({ taskId: item.task_id, branch: item.branch, commit: item.commit }));
}

/**
 * The update of the claiming worker's row to the capabilities and choice it claims with, when they
 * changed (so a steady worker's claims write nothing there) and its bearer, if one was presented, is
 * still stored. The claim statement runs it first: worker row, then task, then plan, the order a
 * heartbeat takes its locks in (docs/claim.md).
 */
function capabilitiesSeen(input: ClaimInput, routing: Routing): SQL {
  const { agents, tags } = routing.capabilities;
  const agent = routing.choice.agent ?? null;
  const forceAgent = routing.choice.forceAgent ?? null;
  return sql`UPDATE ${workers} SET agents = ${textArray(agents)}, tags = ${textArray(tags)},
      agent = ${agent}::text, force_agent = ${forceAgent}::text, capabilities_at = now()
    WHERE worker_id = ${input.workerId} AND ${bearerHeld(input.bearer, input.workerId)}
      AND (agents IS DISTINCT FROM ${textArray(agents)} OR tags IS DISTINCT FROM ${textArray(tags)}
        OR agent IS DISTINCT FROM ${agent}::text OR force_agent IS DISTINCT FROM ${forceAgent}::text)
    RETURNING 1`;
}

/** {@link claimWithPlan} without the plan: the `TaskStore` port's claim. */
export async function claim(db: Db, input: ClaimInput): Promise<ClaimedTask | undefined> {
  return (await claimWithPlan(db, input))?.task;
}
