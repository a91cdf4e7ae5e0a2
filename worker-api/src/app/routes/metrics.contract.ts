import { InvalidInput } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseExposition, seriesKey } from "../../../../test/support/prometheus-text.js";
import { createTokenAuth } from "../../auth/token-auth.js";
import { metricsQuery, TASK_DURATION_BOUNDS_SECONDS } from "../../metrics/families.js";
import { claimAs, plan, task } from "../../store/contract/helpers.contract.js";
import type { Store } from "../../store/store.js";
import { setLastAttemptSeconds } from "../../store/testing/attempt-time.js";
import type { StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";

const ADMIN = "admin-token-for-metrics-tests-0123";
const ALPHA = "alpha";
/** A plan id that needs escaping in a label value. */
const BETA = 'beta "β" \\ x';
const GONE = "gone";

/**
 * `GET /metrics` after a scripted run of claims, completions and failures: every value exact, read
 * with an independent text-format parser, on the store `fixture()` opens (PGlite or Postgres).
 */
export function describeMetricsRoute(name: string, fixture: () => StoreFixture): void {
  describe(`GET /metrics on ${name}`, () => {
    it("serves every metric from the database, exact after claims, completions and failures", async () => {
      const { db } = fixture();
      const store = await fixture().fresh();
      await script(store, (planId, taskId, seconds) => setLastAttemptSeconds(db, planId, taskId, seconds));
      const reply = await scrape(store);
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
      const { samples, families } = await parseExposition(reply.text);

      expect(Object.fromEntries([...families].map(([family, { type }]) => [family, type]))).toEqual({
        whilly_claims_total: "counter",
        whilly_completes_total: "counter",
        whilly_fails_total: "counter",
        whilly_task_duration_seconds: "histogram",
        whilly_plan_attempts: "gauge",
        whilly_tasks: "gauge",
        whilly_plan_spend_usd: "gauge",
        whilly_plan_budget_usd: "gauge",
        whilly_plan_budget_remaining_usd: "gauge",
        whilly_workers_online: "gauge",
      });
      const expected: Record<string, number> = {
        ...perPlan(ALPHA, { claims: 5, completes: 1, attempts: 4, spend: 0.4 }),
        [seriesKey("whilly_fails_total", { plan_id: ALPHA, reason: "verification_failed" })]: 1,
        [seriesKey("whilly_fails_total", { plan_id: ALPHA, reason: "other" })]: 1,
        ...histogram(ALPHA, [3, 45, 900]),
        ...tasks(ALPHA, { ready: 1, blocked: 1, in_progress: 1, done: 1, failed: 1 }),
        [seriesKey("whilly_plan_budget_usd", { plan_id: ALPHA })]: 1,
        [seriesKey("whilly_plan_budget_remaining_usd", { plan_id: ALPHA })]: 0.6,
        ...perPlan(BETA, { claims: 1, completes: 1, attempts: 1, spend: 0.000001 }),
        ...histogram(BETA, [0.5]),
        ...tasks(BETA, { done: 1 }),
        ...perPlan(GONE, { claims: 1, completes: 0, attempts: 1, spend: 0 }),
        [seriesKey("whilly_fails_total", { plan_id: GONE, reason: "timeout" })]: 1,
        ...histogram(GONE, [7200.5]),
        ...tasks(GONE, { failed: 1 }),
        whilly_workers_online: 1,
      };
      expect(Object.fromEntries(samples)).toEqual(expected);

      await store.resetPlan(GONE, "hard");
      const after = (await parseExposition((await scrape(store)).text)).samples;
      const left = Object.fromEntries(Object.entries(expected).filter(([key]) => !key.includes('"gone"')));
      expect(Object.fromEntries(after)).toEqual(left);
    });

    it("refuses a malformed query before reading anything", async () => {
      const store = await fixture().fresh();
      const query = metricsQuery(120_000);
      for (const bad of [
        { ...query, onlineWithinMs: -1 },
        { ...query, onlineWithinMs: 0.5 },
        { ...query, durationBoundsSeconds: [5, 1] },
        { ...query, durationBoundsSeconds: [1, Number.POSITIVE_INFINITY] },
      ]) {
        await expect(store.readMetrics(bad)).rejects.toBeInstanceOf(InvalidInput);
      }
    });

    it("serves the families with no series when nothing is stored", async () => {
      const store = await fixture().fresh();
      const { samples, families } = await parseExposition((await scrape(store)).text);
      expect(families.size).toBe(10);
      expect(Object.fromEntries(samples)).toEqual({ whilly_workers_online: 0 });
    });
  });
}

/**
 * The scripted run. alpha (budget $1): A done in 3 s ($0.25); B failed its checks after 45 s ($0.10)
 * and waits for its retry; C failed with a reason whilly does not send after 900 s ($0.05), its last
 * attempt, so E (after C) is blocked; F was started, given back (`shutdown`), claimed and started
 * again. beta: X done in 0.5 s ($0.000001). gone: G timed out after 7200.5 s, its only attempt.
 * Workers: w1 online, w2 revoked (offline).
 */
async function script(
  store: Store,
  took: (planId: string, taskId: string, seconds: number) => Promise<void>,
): Promise<void> {
  await store.createPlan({ id: ALPHA, name: "alpha", budgetMicroUsd: 1_000_000 });
  await store.importPlan(
    plan(ALPHA, [
      task("A"),
      task("B", { deps: ["A"] }),
      task("C", { maxAttempts: 1 }),
      task("E", { deps: ["C"] }),
      task("F"),
    ]),
  );
  await store.importPlan(plan(BETA, [task("X")]));
  await store.importPlan(plan(GONE, [task("G", { maxAttempts: 1 })]));
  await store.upsertWorker({ workerId: "w2", hostname: "h" });
  await store.revokeWorker("w2");

  const run = async (planId: string, expectId: string) => {
    const claimed = await claimAs(store, planId, "w1");
    expect(claimed?.id).toBe(expectId);
    const started = await store.start({
      planId,
      taskId: expectId,
      workerId: "w1",
      version: claimed?.version ?? -1,
    });
    return { planId, taskId: expectId, workerId: "w1", version: started.version };
  };
  await store.complete({ ...(await run(ALPHA, "A")), costMicroUsd: 250_000 });
  await took(ALPHA, "A", 3);
  await store.fail({ ...(await run(ALPHA, "B")), costMicroUsd: 100_000, reason: "verification_failed" });
  await took(ALPHA, "B", 45);
  await store.fail({
    ...(await run(ALPHA, "C")),
    costMicroUsd: 50_000,
    reason: "a reason of some other client",
  });
  await took(ALPHA, "C", 900);
  await store.release({ ...(await run(ALPHA, "F")), reason: "shutdown" });
  await run(ALPHA, "F");
  await store.complete({ ...(await run(BETA, "X")), costMicroUsd: 1 });
  await took(BETA, "X", 0.5);
  await store.fail({ ...(await run(GONE, "G")), costMicroUsd: 0, reason: "timeout" });
  await took(GONE, "G", 7200.5);
}

async function scrape(store: Store): Promise<{ status: number; contentType: string | null; text: string }> {
  const app = createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: "bootstrap-token-for-metrics-tests", adminToken: ADMIN }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
  const response = await app.request("/metrics", { headers: { authorization: `Bearer ${ADMIN}` } });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text: await response.text(),
  };
}

function perPlan(
  planId: string,
  v: { claims: number; completes: number; attempts: number; spend: number },
): Record<string, number> {
  const labels = { plan_id: planId };
  return {
    [seriesKey("whilly_claims_total", labels)]: v.claims,
    [seriesKey("whilly_completes_total", labels)]: v.completes,
    [seriesKey("whilly_plan_attempts", labels)]: v.attempts,
    [seriesKey("whilly_plan_spend_usd", labels)]: v.spend,
  };
}

function histogram(planId: string, durations: number[]): Record<string, number> {
  const name = "whilly_task_duration_seconds";
  const out: Record<string, number> = {};
  for (const bound of TASK_DURATION_BOUNDS_SECONDS) {
    out[seriesKey(`${name}_bucket`, { plan_id: planId, le: String(bound) })] = durations.filter(
      (d) => d <= bound,
    ).length;
  }
  out[seriesKey(`${name}_bucket`, { plan_id: planId, le: "+Inf" })] = durations.length;
  out[seriesKey(`${name}_sum`, { plan_id: planId })] = durations.reduce((a, b) => a + b, 0);
  out[seriesKey(`${name}_count`, { plan_id: planId })] = durations.length;
  return out;
}

function tasks(planId: string, counts: Partial<Record<string, number>>): Record<string, number> {
  const states = ["ready", "blocked", "claimed", "in_progress", "done", "failed", "skipped"];
  return Object.fromEntries(
    states.map((status) => [seriesKey("whilly_tasks", { plan_id: planId, status }), counts[status] ?? 0]),
  );
}
