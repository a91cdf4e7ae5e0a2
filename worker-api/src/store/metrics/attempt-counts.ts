import { EVENT_TYPES, InvalidInput } from "@whilly/core";
import { events } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { rawRows } from "../raw-rows.js";

/** A plan's attempts as its audit log tells them. */
export type AttemptCounts = {
  /** `CLAIM` events: claims made, given-back ones included. */
  readonly claims: number;
  /** `COMPLETE` events: attempts that ended `DONE`. */
  readonly completes: number;
  /** `FAIL` events (a failed attempt, retried or not) by reason; only reasons seen are present. */
  readonly fails: Readonly<Record<string, number>>;
  /**
   * How long finished attempts (`COMPLETE` or `FAIL`) took from their claim, seconds, by the database
   * clock (the two events' `created_at`). `buckets[i]` counts those at most `durationBoundsSeconds[i]`
   * (cumulative, as Prometheus's `le`); `count` and `sumSeconds` cover every timed attempt.
   */
  readonly durations: {
    readonly buckets: readonly number[];
    readonly count: number;
    readonly sumSeconds: number;
  };
};

const COUNTED = [EVENT_TYPES.claim, EVENT_TYPES.complete, EVENT_TYPES.fail] as const;

/**
 * Counts each plan's claims, completions and failures (by reason, unknown reasons folded into
 * `otherReason`), and buckets each finished attempt's duration, in one aggregate over the audit log's
 * `CLAIM`, `COMPLETE` and `FAIL` events. An attempt's duration runs from its task's latest `CLAIM`
 * before the finish event (so a claim given back does not count: the claim after it starts the
 * attempt); a finish with no `CLAIM` before it is counted but not timed. The statement reads the partial index `events_attempts`
 * (`plan_id, task_id, id` of those three types), which also hands the window its order, so no sort.
 * @returns the counts of every plan that has such events, by plan id.
 * @throws {InvalidInput} for bounds that are not finite and ascending.
 */
export async function readAttemptCounts(
  db: Db,
  query: {
    readonly failReasons: readonly string[];
    readonly otherReason: string;
    readonly durationBoundsSeconds: readonly number[];
  },
): Promise<Map<string, AttemptCounts>> {
  const bounds = query.durationBoundsSeconds;
  if (bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= (bounds[i - 1] ?? b)))) {
    throw new InvalidInput("durationBoundsSeconds", "finite numbers in ascending order");
  }
  const known =
    query.failReasons.length === 0
      ? sql`false`
      : sql`reason IN (${sql.join(
          query.failReasons.map((r) => sql`${r}`),
          sql`, `,
        )})`;
  const result = await db.execute(sql`
    WITH attempts AS (
      SELECT plan_id, event_type, payload->>'reason' AS reason,
        CASE WHEN event_type <> ${EVENT_TYPES.claim} AND lag(event_type) OVER w = ${EVENT_TYPES.claim}
          THEN extract(epoch FROM created_at - lag(created_at) OVER w)::float8 END AS seconds
      FROM ${events}
      WHERE event_type IN (${sql.raw(COUNTED.map((t) => `'${t}'`).join(", "))})
      WINDOW w AS (PARTITION BY plan_id, task_id ORDER BY id)
    )
    SELECT plan_id, event_type,
      CASE WHEN event_type = ${EVENT_TYPES.fail} THEN CASE WHEN ${known} THEN reason ELSE ${query.otherReason}::text END END AS reason,
      ${bucketOf(bounds)} AS bucket,
      count(*)::int AS n, COALESCE(sum(seconds), 0)::float8 AS seconds
    FROM attempts
    GROUP BY 1, 2, 3, 4
  `);
  const counts = new Map<string, MutableCounts>();
  for (const row of rawRows(result)) {
    const planId = String(row.plan_id);
    let plan = counts.get(planId);
    if (!plan) {
      plan = { claims: 0, completes: 0, fails: {}, perBucket: bounds.map(() => 0), count: 0, sumSeconds: 0 };
      counts.set(planId, plan);
    }
    const n = Number(row.n);
    if (row.event_type === EVENT_TYPES.claim) plan.claims += n;
    else if (row.event_type === EVENT_TYPES.complete) plan.completes += n;
    else {
      const reason = String(row.reason);
      plan.fails[reason] = (plan.fails[reason] ?? 0) + n;
    }
    if (row.bucket === null || row.bucket === undefined) continue;
    const bucket = Number(row.bucket);
    if (bucket < bounds.length) plan.perBucket[bucket] = (plan.perBucket[bucket] ?? 0) + n;
    plan.count += n;
    plan.sumSeconds += Number(row.seconds);
  }
  return new Map(
    [...counts].map(([planId, plan]) => {
      let running = 0;
      const buckets = plan.perBucket.map((n) => (running += n));
      const { claims, completes, fails, count, sumSeconds } = plan;
      return [planId, { claims, completes, fails, durations: { buckets, count, sumSeconds } }];
    }),
  );
}

type MutableCounts = {
  claims: number;
  completes: number;
  fails: Record<string, number>;
  /** Attempts whose duration falls in bucket i (not cumulative). */
  perBucket: number[];
  count: number;
  sumSeconds: number;
};

/**
 * The index of the first bound a duration is at most (`bounds.length` past them all), NULL for an
 * untimed row. Literal bounds, since they are a fixed list of finite numbers.
 */
function bucketOf(bounds: readonly number[]): SQL {
  if (bounds.length === 0) return sql`CASE WHEN seconds IS NULL THEN NULL ELSE 0 END`;
  const arms = bounds.map((bound, i) => sql.raw(`WHEN seconds <= ${bound} THEN ${i}`));
  return sql`CASE WHEN seconds IS NULL THEN NULL ${sql.join(arms, sql` `)} ELSE ${sql.raw(String(bounds.length))} END`;
}
