import { InvalidInput, type MicroUsd, type TaskStatus } from "@whilly/core";
import { plans, tasks, workers } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { before } from "../lease.js";
import { rawRows } from "../raw-rows.js";
import { toMicroUsd } from "../rows.js";
import { type AttemptCounts, readAttemptCounts } from "./attempt-counts.js";

export type { AttemptCounts } from "./attempt-counts.js";

/** What {@link readMetrics} counts, and how. */
export type MetricsQuery = {
  /** A worker counts as online when its status is `online` and it was heard from within this long (ms, database clock). */
  readonly onlineWithinMs: number;
  /** Fail reasons counted under their own name; every other reason is counted under `otherReason`. */
  readonly failReasons: readonly string[];
  readonly otherReason: string;
  /** Upper bounds of the attempt-duration buckets, seconds, finite and ascending. */
  readonly durationBoundsSeconds: readonly number[];
};

/** How many tasks of a plan are in one status; `PENDING` split by whether a dependency is unfinished. */
export type TaskCount = {
  readonly status: TaskStatus;
  /** `PENDING` with a dependency not `DONE` yet; always false for other statuses. */
  readonly blocked: boolean;
  readonly count: number;
};

/** One stored plan's numbers. */
export type PlanMetrics = AttemptCounts & {
  readonly planId: string;
  /** Undefined when the plan has no budget. */
  readonly budgetMicroUsd: MicroUsd | undefined;
  /** Spend over every attempt of the plan, failed ones included. */
  readonly spentMicroUsd: MicroUsd;
  /** Attempts its tasks have used (their `attempts` summed: given-back attempts and resets lower it). */
  readonly attempts: number;
  /** Non-zero counts only, ordered by status then `blocked`. */
  readonly tasks: readonly TaskCount[];
};

/** The control plane's numbers as the database has them now: what `GET /metrics` serves. */
export type StoreMetrics = {
  readonly workersOnline: number;
  /** Every stored plan, by id: a deleted plan is simply absent. */
  readonly plans: readonly PlanMetrics[];
};

/**
 * Reads every number `GET /metrics` serves in two statements: the attempts from the audit log
 * (`attempt-counts.ts`), then the plans with their task counts, spend and budget, and the workers online.
 * Both are aggregates; each plan's task counts are read through the `tasks` primary key, and the
 * audit log through the partial index `events_attempts`, so a scrape reads no task text or output.
 * The two statements run apart, not in one snapshot: a scrape may see a claim in one and not the other.
 * @throws {InvalidInput} for a negative or fractional `onlineWithinMs`, or bounds that are not finite and ascending.
 */
export async function readMetrics(db: Db, query: MetricsQuery): Promise<StoreMetrics> {
  if (!Number.isSafeInteger(query.onlineWithinMs) || query.onlineWithinMs < 0) {
    throw new InvalidInput("onlineWithinMs", "a whole number of milliseconds, 0 or more");
  }
  // The audit log first: it checks the bounds before either statement runs.
  const counted = await readAttemptCounts(db, query);
  const result = await db.execute(sql`
    SELECT w.online, p.id AS plan_id, p.budget_usd::text AS budget_usd, p.spent_usd::text AS spent_usd,
      s.status, s.blocked, s.n, s.attempts
    FROM (
      SELECT count(*)::int AS online FROM ${workers}
      WHERE status = 'online' AND last_heartbeat > ${before(query.onlineWithinMs)}
    ) w
    LEFT JOIN ${plans} p ON true
    LEFT JOIN LATERAL (
      SELECT t.status, (t.status = 'PENDING' AND t.unfinished_deps > 0) AS blocked,
        count(*)::int AS n, sum(t.attempts)::int8 AS attempts
      FROM ${tasks} t WHERE t.plan_id = p.id
      GROUP BY 1, 2
    ) s ON true
    ORDER BY p.id, s.status, s.blocked
  `);
  const rows = rawRows(result);
  const byPlan = new Map<
    string,
    Omit<PlanMetrics, "tasks" | "attempts"> & { tasks: TaskCount[]; attempts: number }
  >();
  for (const row of rows) {
    if (row.plan_id === null || row.plan_id === undefined) continue;
    const planId = String(row.plan_id);
    let plan = byPlan.get(planId);
    if (!plan) {
      plan = {
        planId,
        budgetMicroUsd: row.budget_usd === null ? undefined : toMicroUsd(String(row.budget_usd)),
        spentMicroUsd: toMicroUsd(String(row.spent_usd)),
        attempts: 0,
        tasks: [],
        ...(counted.get(planId) ?? emptyAttemptCounts(query)),
      };
      byPlan.set(planId, plan);
    }
    if (row.status === null || row.status === undefined) continue;
    plan.tasks.push({
      status: row.status as TaskStatus,
      blocked: row.blocked === true,
      count: Number(row.n),
    });
    plan.attempts += Number(row.attempts);
  }
  return { workersOnline: Number(rows[0]?.online ?? 0), plans: [...byPlan.values()] };
}

function emptyAttemptCounts(query: MetricsQuery): AttemptCounts {
  return {
    claims: 0,
    completes: 0,
    fails: {},
    durations: { buckets: query.durationBoundsSeconds.map(() => 0), count: 0, sumSeconds: 0 },
  };
}
