// Claim → complete throughput of independent tasks with N concurrent workers (no-op agent), with the
// client's requests, the database's commits and the host's CPU per task.
import { BenchClient } from "../lib/client.mjs";
import { drain } from "../lib/drain.mjs";
import { independentTasks } from "../lib/plans.mjs";
import { loadAverage, percentile } from "../lib/stats.mjs";

/**
 * One drain per worker count, each over a fresh plan of `tasks` independent tasks.
 * @param {import("../run.mjs").Context} ctx
 * @param {{ workerCounts: number[], tasks: number, timeLimitMs: number }} options
 * @returns {Promise<ThroughputRow[]>}
 * @typedef {{ workers: number, tasks: number, completed: number, timedOut: boolean, elapsedMs: number,
 *   tasksPerSecond: number, cycleP50Ms: number | undefined, cycleP99Ms: number | undefined,
 *   requestsPerTask: number, transactionsPerTask: number, connectionsPerTask: number, cpuMsPerTask: number, errors: number,
 *   lastError: string | undefined, load: string }} ThroughputRow
 */
export async function measureThroughput(ctx, { workerCounts, tasks, timeLimitMs }) {
  const registrar = new BenchClient(ctx.host.url, { connections: 16 });
  const pool = await registrar.registerMany(ctx.bootstrapToken, Math.max(...workerCounts));
  await registrar.close();
  const rows = [];
  for (const count of workerCounts) {
    const planId = `flat-${count}`;
    await ctx.importer.importPlan(independentTasks(planId, tasks));
    const client = new BenchClient(ctx.host.url, { connections: count + 4 });
    const before = await ctx.db.counters();
    const cpuBefore = ctx.host.cpuMs();
    const load = loadAverage();
    ctx.progress(`${ctx.host.name}: throughput, ${count} worker(s), ${tasks} tasks`);
    const result = await drain({ client, workers: pool.slice(0, count), planId, total: tasks, timeLimitMs });
    const cpuMs = ctx.host.cpuMs() - cpuBefore;
    const after = await ctx.db.counters();
    await client.close();
    const perTask = (value) => (result.completed > 0 ? value / result.completed : Number.NaN);
    rows.push({
      workers: count,
      tasks,
      completed: result.completed,
      timedOut: result.timedOut,
      elapsedMs: result.elapsedMs,
      tasksPerSecond: result.completed / (result.elapsedMs / 1000),
      cycleP50Ms: percentile(result.cycleMs, 50),
      cycleP99Ms: percentile(result.cycleMs, 99),
      requestsPerTask: perTask(client.requests),
      transactionsPerTask: perTask(after.commits - before.commits),
      connectionsPerTask: perTask(after.sessions - before.sessions),
      cpuMsPerTask: perTask(cpuMs),
      errors: result.errors,
      lastError: result.lastError,
      load,
    });
  }
  return rows;
}
