// A large layered DAG drained by a fleet of workers, checked against the audit log afterwards.
import { BenchClient } from "../lib/client.mjs";
import { drain } from "../lib/drain.mjs";
import { layeredDag } from "../lib/plans.mjs";
import { loadAverage, now, percentile } from "../lib/stats.mjs";

/**
 * Imports a `layers` × `width` DAG (see `layeredDag`), drains it with `workers` workers, and checks from
 * the events table that every CLAIM came after the COMPLETE of each of the task's dependencies and that
 * no task was claimed or completed twice.
 * @param {import("../run.mjs").Context} ctx
 * @param {{ layers: number, width: number, workers: number, timeLimitMs: number }} options
 * @returns {Promise<DagRow>}
 * @typedef {{ tasks: number, edges: number, workers: number, importMs: number, completed: number,
 *   timedOut: boolean, elapsedMs: number, tasksPerSecond: number, cycleP50Ms: number | undefined,
 *   cycleP99Ms: number | undefined, requestsPerTask: number, transactionsPerTask: number,
 *   connectionsPerTask: number,
 *   cpuMsPerTask: number, early: number, reclaimed: number, doubleDone: number, done: number,
 *   errors: number, lastError: string | undefined, load: string }} DagRow
 */
export async function measureDag(ctx, { layers, width, workers, timeLimitMs }) {
  const planId = "dag";
  const total = layers * width;
  const importStarted = now();
  await ctx.importer.importPlan(layeredDag(planId, { layers, width }));
  const importMs = now() - importStarted;
  const client = new BenchClient(ctx.host.url, { connections: workers + 4 });
  const fleet = await client.registerMany(ctx.bootstrapToken, workers);
  const requestsBefore = client.requests;
  const before = await ctx.db.counters();
  const cpuBefore = ctx.host.cpuMs();
  const load = loadAverage();
  ctx.progress(`${ctx.host.name}: draining a ${total}-task DAG with ${workers} workers`);
  const result = await drain({ client, workers: fleet, planId, total, timeLimitMs });
  const cpuMs = ctx.host.cpuMs() - cpuBefore;
  const after = await ctx.db.counters();
  await client.close();
  const check = await ctx.db.checkDrainedPlan(planId);
  const perTask = (value) => (result.completed > 0 ? value / result.completed : Number.NaN);
  return {
    tasks: total,
    edges: check.edges,
    workers,
    importMs,
    completed: result.completed,
    timedOut: result.timedOut,
    elapsedMs: result.elapsedMs,
    tasksPerSecond: result.completed / (result.elapsedMs / 1000),
    cycleP50Ms: percentile(result.cycleMs, 50),
    cycleP99Ms: percentile(result.cycleMs, 99),
    requestsPerTask: perTask(client.requests - requestsBefore),
    transactionsPerTask: perTask(after.commits - before.commits),
    connectionsPerTask: perTask(after.sessions - before.sessions),
    cpuMsPerTask: perTask(cpuMs),
    early: check.early,
    reclaimed: check.reclaimed,
    doubleDone: check.doubleDone,
    done: check.done,
    errors: result.errors,
    lastError: result.lastError,
    load,
  };
}
