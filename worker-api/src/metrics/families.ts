import { KNOWN_FAIL_REASONS, type MicroUsd, OTHER_FAIL_REASON, TASK_STATUSES } from "@whilly/core";
import type { MetricsQuery, PlanMetrics, StoreMetrics, TaskCount } from "../store/store.js";
import type { DurationHistogram } from "./histogram.js";
import type { MetricFamily, Sample } from "./text-format.js";

/**
 * Bounds of `whilly_task_duration_seconds`, seconds: an agent attempt takes from seconds (a command
 * agent) to hours (a large Claude Code task).
 */
export const TASK_DURATION_BOUNDS_SECONDS: readonly number[] = [
  1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
];

/** What the store is asked for the families below; `onlineWithinMs` is the host's heartbeat timeout. */
export function metricsQuery(onlineWithinMs: number): MetricsQuery {
  return {
    onlineWithinMs,
    failReasons: KNOWN_FAIL_REASONS,
    otherReason: OTHER_FAIL_REASON,
    durationBoundsSeconds: TASK_DURATION_BOUNDS_SECONDS,
  };
}

/**
 * The `whilly_tasks` status label of a task count: `PENDING` splits into `ready` (every dependency
 * `DONE`) and `blocked`; other statuses are their name in lower case.
 */
export const TASK_STATES = [
  "ready",
  "blocked",
  ...TASK_STATUSES.filter((s) => s !== "PENDING").map((s) => s.toLowerCase()),
] as const;

/**
 * The metric families of `GET /metrics` (docs/metrics.md lists them): per plan (`plan_id` label; a
 * deleted plan's series are gone, since they come from its rows), the workers online, and, where
 * the host keeps one (`claimWaits`, Node), the claim long poll's histogram of this process.
 */
export function metricFamilies(metrics: StoreMetrics, claimWaits?: DurationHistogram): MetricFamily[] {
  const plans = metrics.plans;
  const perPlan = (value: (plan: PlanMetrics) => number | undefined): Sample[] =>
    plans.flatMap((plan) => {
      const v = value(plan);
      return v === undefined ? [] : [{ labels: { plan_id: plan.planId }, value: v }];
    });
  const budgeted = (value: (plan: PlanMetrics, budget: MicroUsd) => MicroUsd) =>
    perPlan((plan) =>
      plan.budgetMicroUsd === undefined ? undefined : usd(value(plan, plan.budgetMicroUsd)),
    );
  const families: MetricFamily[] = [
    {
      name: "whilly_claims_total",
      help: "Tasks claimed (CLAIM audit events), given-back claims included.",
      type: "counter",
      samples: perPlan((plan) => plan.claims),
    },
    {
      name: "whilly_completes_total",
      help: "Attempts that ended DONE (COMPLETE audit events).",
      type: "counter",
      samples: perPlan((plan) => plan.completes),
    },
    {
      name: "whilly_fails_total",
      help: `Failed attempts (FAIL audit events), retried or not, by reason; reasons whilly does not send count as "${OTHER_FAIL_REASON}".`,
      type: "counter",
      samples: plans.flatMap((plan) =>
        Object.keys(plan.fails)
          .sort()
          .map((reason) => ({ labels: { plan_id: plan.planId, reason }, value: plan.fails[reason] ?? 0 })),
      ),
    },
    {
      name: "whilly_task_duration_seconds",
      help: "How long finished attempts (COMPLETE or FAIL) took from their claim, by the database clock.",
      type: "histogram",
      samples: plans.map((plan) => ({
        labels: { plan_id: plan.planId },
        bounds: TASK_DURATION_BOUNDS_SECONDS,
        buckets: plan.durations.buckets,
        count: plan.durations.count,
        sum: plan.durations.sumSeconds,
      })),
    },
    {
      name: "whilly_plan_attempts",
      help: "Attempts the plan's tasks have used (attempts given back and plan resets lower it).",
      type: "gauge",
      samples: perPlan((plan) => plan.attempts),
    },
    {
      name: "whilly_tasks",
      help: "Tasks by status; PENDING splits into ready (every dependency DONE) and blocked.",
      type: "gauge",
      samples: plans.flatMap((plan) =>
        TASK_STATES.map((status) => ({
          labels: { plan_id: plan.planId, status },
          value: countIn(plan.tasks, status),
        })),
      ),
    },
    {
      name: "whilly_plan_spend_usd",
      help: "The plan's spend over every attempt, failed ones included, US dollars.",
      type: "gauge",
      samples: perPlan((plan) => usd(plan.spentMicroUsd)),
    },
    {
      name: "whilly_plan_budget_usd",
      help: "The plan's budget, US dollars; plans without a budget have no series.",
      type: "gauge",
      samples: budgeted((_plan, budget) => budget),
    },
    {
      name: "whilly_plan_budget_remaining_usd",
      help: "The plan's budget less its spend, at least 0, US dollars; plans without a budget have no series.",
      type: "gauge",
      samples: budgeted((plan, budget) => Math.max(0, budget - plan.spentMicroUsd)),
    },
    {
      name: "whilly_workers_online",
      help: "Workers online and heard from within the heartbeat timeout.",
      type: "gauge",
      samples: [{ value: metrics.workersOnline }],
    },
  ];
  if (claimWaits) {
    const { bounds, buckets, count, sum } = claimWaits.snapshot();
    families.push({
      name: "whilly_claim_long_poll_duration_seconds",
      help: "How long claims (POST /tasks/claim) took to answer, parked waits included, in this control-plane process.",
      type: "histogram",
      samples: [{ bounds, buckets, count, sum }],
    });
  }
  return families;
}

function countIn(tasks: readonly TaskCount[], state: string): number {
  let n = 0;
  for (const t of tasks) {
    const label = t.status === "PENDING" ? (t.blocked ? "blocked" : "ready") : t.status.toLowerCase();
    if (label === state) n += t.count;
  }
  return n;
}

/** Micro-dollars as dollars; exact to the micro-dollar below 2^53 micro-dollars. */
function usd(micro: MicroUsd): number {
  return micro / 1_000_000;
}
