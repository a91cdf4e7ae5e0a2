// Ready → claimed wake latency: two workers walk a chain (task k depends on task k-1), taking turns. The
// worker holding task k completes it while the other is parked in a long-poll claim; completing k is
// what makes k+1 ready, so the parked claim must be woken to get it.
import { BenchClient } from "../lib/client.mjs";
import { chain } from "../lib/plans.mjs";
import { loadAverage, now, percentile, sleep } from "../lib/stats.mjs";

/** Longest a single hop may take before the walk is abandoned, ms. */
const HOP_LIMIT_MS = 10_000;

/**
 * Walks a chain of `length` tasks. Each hop: the parked worker's claim was sent `settleMs` earlier
 * (long enough to find nothing and park); the holder sends its complete at t0; the parked claim's answer
 * arrives at t1; the hop is t1 - t0. Only then does the completing worker send its own next claim, so
 * it never races the woken claim for the task.
 * @param {import("../run.mjs").Context} ctx
 * @param {{ length: number, settleMs: number, timeLimitMs: number }} options
 * @returns {Promise<WakeRow>}
 * @typedef {{ hops: number, p50Ms: number | undefined, p99Ms: number | undefined, maxMs: number | undefined,
 *   dbP50Ms: number | undefined, dbP99Ms: number | undefined, notParked: number, load: string,
 *   error: string | undefined }} WakeRow
 */
export async function measureWake(ctx, { length, settleMs, timeLimitMs }) {
  const planId = "chain";
  await ctx.importer.importPlan(chain(planId, length));
  const client = new BenchClient(ctx.host.url, { connections: 4 });
  const [first, second] = await client.registerMany(ctx.bootstrapToken, 2);
  const load = loadAverage();
  ctx.progress(`${ctx.host.name}: wake latency over a chain of ${length}`);
  const hopsMs = [];
  let notParked = 0;
  let error;
  const deadline = Date.now() + timeLimitMs;
  try {
    let holder = first;
    let parked = second;
    let task = await client.claim(holder, planId);
    if (!task) throw new Error("the chain's first task was not ready");
    for (let hop = 1; hop < length && Date.now() < deadline; hop++) {
      let answered = false;
      const parkedClaim = client.claim(parked, planId).finally(() => {
        answered = true;
      });
      // Awaited below; a walk abandoned before then must not leave its rejection unhandled.
      parkedClaim.catch(() => {});
      await sleep(settleMs);
      if (answered) notParked++;
      const t0 = now();
      const completing = client.complete(holder, task);
      completing.catch(() => {});
      const next = await withLimit(parkedClaim, HOP_LIMIT_MS, `hop ${hop}`);
      hopsMs.push(now() - t0);
      await completing;
      if (!next) throw new Error(`hop ${hop}: the parked claim answered 204`);
      [holder, parked, task] = [parked, holder, next];
    }
    await client.complete(holder, task);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    await client.close();
  }
  const dbHopsMs = await ctx.db.chainHopsMs(planId);
  return {
    hops: hopsMs.length,
    p50Ms: percentile(hopsMs, 50),
    p99Ms: percentile(hopsMs, 99),
    maxMs: hopsMs.length > 0 ? Math.max(...hopsMs) : undefined,
    dbP50Ms: percentile(dbHopsMs, 50),
    dbP99Ms: percentile(dbHopsMs, 99),
    notParked,
    load,
    error,
  };
}

/** `promise`, or a rejection after `ms`. */
function withLimit(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
