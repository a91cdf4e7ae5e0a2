// Control-plane memory with many claims parked in long polls, and how the herd drains once tasks arrive.
import { setMaxListeners } from "node:events";
import { BenchClient } from "../lib/client.mjs";
import { independentTasks } from "../lib/plans.mjs";
import { loadAverage, now, sleep } from "../lib/stats.mjs";

/** Claims sent together, and the open connections a wave waits below. */
const RAMP_BATCH = 20;
const RAMP_MAX_CONNECTIONS = 40;
/** Parking stops sending after this long (ms), so the first claims are still parked when RSS is read. */
const RAMP_LIMIT_MS = 15_000;
/** Connections a host keeps open with nothing to do: Node's pool and its LISTEN connection. */
const IDLE_CONNECTIONS = 11;

/**
 * Registers `count` workers and parks one claim each on an empty plan (in waves, see below), waits
 * until they hold no database connection (at most `settleMs`), then reads the host's RSS and the
 * database connections it holds. Then imports `count` tasks into the plan and times
 * how long until every parked claim has answered with a task (a thundering-herd check: each must be
 * woken, and none may get nothing). Claims not answered by then are abandoned.
 * @param {import("../run.mjs").Context} ctx
 * @param {{ count: number, settleMs: number, claimWaitMs: number, rampPauseMs: number }} options
 *   `claimWaitMs` is the host's long-poll bound; the claims are read before it ends.
 * @returns {Promise<ParkedRow>}
 * @typedef {{ parked: number, rssBeforeMb: number, rssParkedMb: number, kibPerPoll: number,
 *   databaseConnections: number, answeredEarly: number, gotTask: number, errors: number,
 *   lastError: string | undefined,
 *   herdMs: number | undefined, load: string }} ParkedRow
 */
export async function measureParked(ctx, { count, settleMs, claimWaitMs, rampPauseMs }) {
  const planId = "parked";
  await ctx.importer.createEmptyPlan(planId);
  const client = new BenchClient(ctx.host.url, { connections: count + 8 });
  ctx.progress(`${ctx.host.name}: registering ${count} workers`);
  const workers = await client.registerMany(ctx.bootstrapToken, count);
  await sleep(1000);
  const rssBeforeMb = ctx.host.rssMb();
  ctx.progress(`${ctx.host.name}: parking ${count} claims`);
  const abandon = new AbortController();
  setMaxListeners(count + 8, abandon.signal);
  let answered = 0;
  let gotTask = 0;
  let errors = 0;
  let lastError;
  let lastAnswerAt;
  const park = (worker) =>
    client.claim(worker, planId, abandon.signal).then(
      (task) => {
        answered++;
        if (task) gotTask++;
        lastAnswerAt = now();
      },
      (error) => {
        if (abandon.signal.aborted) return;
        errors++;
        lastError = error instanceof Error ? error.message : String(error);
      },
    );
  // Claims arrive in waves `rampPauseMs` apart, each once the host's earlier claims have let go of their
  // database connections (parked claims hold none): a claim's first attempt needs one, and on Workers
  // every request opens its own, so a thousand at once would exceed a local server's max_connections
  // (a deployment reaches Neon through its connection pooler instead). The pause matters as much as
  // the check: requests queued inside workerd hold no connection yet.
  const sentAt = Date.now();
  const rampEnd = sentAt + RAMP_LIMIT_MS;
  const claims = [];
  for (let i = 0; i < workers.length && Date.now() < rampEnd; i += RAMP_BATCH) {
    while ((await ctx.db.connections()) > RAMP_MAX_CONNECTIONS && Date.now() < rampEnd) await sleep(50);
    claims.push(...workers.slice(i, i + RAMP_BATCH).map(park));
    await sleep(rampPauseMs);
  }
  const settleEnd = Date.now() + settleMs;
  while ((await ctx.db.connections()) > IDLE_CONNECTIONS && Date.now() < settleEnd) await sleep(100);
  await sleep(1000);
  const answeredEarly = answered;
  const rssParkedMb = ctx.host.rssMb();
  const databaseConnections = await ctx.db.connections();
  const load = loadAverage();

  const importedAt = now();
  await ctx.importer.importPlan(independentTasks(planId, count));
  const remainingMs = Math.max(0, sentAt + claimWaitMs - 500 - Date.now());
  await Promise.race([Promise.all(claims), sleep(remainingMs)]);
  const herdMs =
    gotTask === claims.length && lastAnswerAt !== undefined ? lastAnswerAt - importedAt : undefined;
  abandon.abort();
  await Promise.all(claims);
  await client.close();
  return {
    parked: claims.length,
    rssBeforeMb,
    rssParkedMb,
    kibPerPoll: ((rssParkedMb - rssBeforeMb) * 1024) / claims.length,
    databaseConnections,
    answeredEarly,
    gotTask,
    errors,
    lastError,
    herdMs,
    load,
  };
}
