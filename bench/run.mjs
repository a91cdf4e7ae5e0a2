#!/usr/bin/env node
// `npm run bench [-- options]`: measures the control plane on Node (`whilly server`) and on workerd
// (`wrangler dev`) against a real local Postgres, and prints markdown tables. Run by hand, never by CI:
// it takes a few minutes and the numbers depend on the machine. Build first (`npm run build`).
//
// Options: --hosts node,workerd  --workers 1,16,64  --tasks 3000  --chain 200  --parked 1000
//          --dag-layers 20 --dag-width 500 --dag-workers 16  --only floor,throughput,wake,dag,parked
//          --profile DIR (CPU profile of the Node server)  --out FILE (also write the report there)
// Environment: WHILLY_BENCH_DATABASE_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres).
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { createBenchDatabase } from "./lib/database.mjs";
import { measureFloor } from "./lib/floor.mjs";
import { startNodeHost, startWorkerdHost } from "./lib/hosts.mjs";
import { PlanImporter } from "./lib/plans.mjs";
import { renderReport } from "./lib/report.mjs";
import { fmt, loadAverage, percentile, sleep } from "./lib/stats.mjs";
import { measureDag } from "./scenarios/dag.mjs";
import { measureParked } from "./scenarios/memory.mjs";
import { measureThroughput } from "./scenarios/throughput.mjs";
import { measureWake } from "./scenarios/wake.mjs";

/**
 * What every scenario gets.
 * @typedef {{ host: import("./lib/hosts.mjs").Host, db: import("./lib/database.mjs").BenchDatabase,
 *   importer: PlanImporter, bootstrapToken: string, progress: (line: string) => void }} Context
 */

const { values: opts } = parseArgs({
  options: {
    hosts: { type: "string", default: "node,workerd" },
    workers: { type: "string", default: "1,16,64" },
    tasks: { type: "string", default: "3000" },
    chain: { type: "string", default: "200" },
    parked: { type: "string", default: "1000" },
    "dag-layers": { type: "string", default: "20" },
    "dag-width": { type: "string", default: "500" },
    "dag-workers": { type: "string", default: "16" },
    only: { type: "string", default: "floor,throughput,wake,dag,parked" },
    profile: { type: "string" },
    out: { type: "string" },
  },
});
const adminUrl = process.env.WHILLY_BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const only = new Set(opts.only.split(","));
const int = (name) => {
  const value = Number(opts[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number`);
  return value;
};
/** Every drain stops at this wall time, finished or not. */
const TIME_LIMIT_MS = 120_000;
/** The hosts' long-poll bound (their default, WHILLY_CLAIM_TIMEOUT=30). */
const CLAIM_WAIT_MS = 30_000;
const BOOTSTRAP_TOKEN = `bench-bootstrap-${process.pid}-${Date.now()}`;
const starters = { node: startNodeHost, workerd: startWorkerdHost };

const cleanups = new Set();
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    console.error(`\nbench: ${signal}; stopping hosts and dropping databases`);
    await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
    process.exit(130);
  });
}
// A bug in the bench must still stop the hosts it started and drop its databases.
for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.once(event, async (error) => {
    console.error(`bench: ${event}:`, error);
    await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
    process.exit(1);
  });
}
const progress = (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const machine = {
  CPU: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
  memory: `${fmt(totalmem() / 2 ** 30, 1)} GiB`,
  Node: process.version,
  "load average at start (1/5/15 min)": loadAverage(),
};
if (only.has("floor")) {
  progress("floor: pgbench and a node-postgres round trip");
  const floor = await measureFloor(adminUrl);
  machine["Postgres floor (pgbench -N, prepared, 5 s)"] =
    floor.error ?? `${fmt(floor.tpsC1)} tps with 1 client, ${fmt(floor.tpsC8)} tps with 8`;
  machine["SELECT 1 round trip through node-postgres (median)"] = `${fmt(floor.selectRoundTripUs)} µs`;
}
const hosts = [];
for (const name of opts.hosts.split(",")) {
  const start = starters[name];
  if (!start) throw new Error(`unknown host '${name}' (node, workerd)`);
  try {
    hosts.push({ name, result: await benchHost(name, start) });
  } catch (error) {
    progress(`${name}: failed: ${error instanceof Error ? error.stack : error}`);
    hosts.push({ name, error: error instanceof Error ? error.message : String(error) });
  }
}
machine["load average at end"] = loadAverage();
const report = renderReport({ machine, hosts });
console.log(report);
if (opts.out) writeFileSync(opts.out, `${report}\n`);

/** Runs every scenario on one host, on a fresh database that is dropped afterwards. */
async function benchHost(name, start) {
  progress(`${name}: creating and migrating a fresh database`);
  const db = await createBenchDatabase(adminUrl, name);
  machine.Postgres ??= await db.serverVersion();
  let host;
  let importer;
  const cleanup = async () => {
    await importer?.close().catch(() => {});
    await host?.stop().catch(() => {});
    await db.drop().catch(() => {});
  };
  cleanups.add(cleanup);
  try {
    progress(`${name}: starting the host`);
    const profileDir = name === "node" ? opts.profile : undefined;
    host = await start({ databaseUrl: db.url, bootstrapToken: BOOTSTRAP_TOKEN, profileDir });
    importer = await PlanImporter.open(db.url);
    const ctx = { host, db, importer, bootstrapToken: BOOTSTRAP_TOKEN, progress };
    return await runScenarios(ctx);
  } finally {
    await cleanup();
    cleanups.delete(cleanup);
  }
}

/** @param {Context} ctx */
async function runScenarios(ctx) {
  const { host, db } = ctx;
  await sleep(2000);
  const result = { idleFreshMb: host.rssMb(), idleTreeMb: host.treeRssMb(), notes: [] };
  const idleStart = await db.counters();
  await sleep(5000);
  result.backgroundCommitsPerSecond = ((await db.counters()).commits - idleStart.commits) / 6.5;
  const notes = result.notes;
  notes.push(
    `Idle: ${fmt(result.idleFreshMb, 1)} MB RSS in the serving process(es), ${fmt(result.idleTreeMb, 1)} MB ` +
      `for every process the host started; ${fmt(result.backgroundCommitsPerSecond, 2)} commits/s with no traffic.`,
  );
  result.health = await healthRoundTrip(host.url);
  notes.push(
    `GET /health (one database round trip; on workerd a new connection too): p50 ${fmt(result.health.p50Ms, 1)} ms, ` +
      `p99 ${fmt(result.health.p99Ms, 1)} ms over 100 sequential requests.`,
  );
  if (only.has("throughput")) {
    const workerCounts = opts.workers.split(",").map(Number);
    result.throughput = await measureThroughput(ctx, {
      workerCounts,
      tasks: int("tasks"),
      timeLimitMs: TIME_LIMIT_MS,
    });
  }
  if (only.has("wake")) {
    const settleMs = host.name === "node" ? 30 : 150;
    result.wake = await measureWake(ctx, { length: int("chain"), settleMs, timeLimitMs: TIME_LIMIT_MS });
    const w = result.wake;
    notes.push(
      `Wake: ${w.hops} hops, each claim parked ${settleMs} ms before the complete was sent; ` +
        `max ${fmt(w.maxMs, 2)} ms; ${w.notParked} claim(s) answered before the complete; load ${w.load}` +
        (w.error ? `; stopped: ${w.error}` : "."),
    );
  }
  if (only.has("dag")) {
    const dag = await measureDag(ctx, {
      layers: int("dag-layers"),
      width: int("dag-width"),
      workers: int("dag-workers"),
      timeLimitMs: TIME_LIMIT_MS,
    });
    result.dag = dag;
    notes.push(
      `DAG: ${fmt(dag.tasks)} tasks, ${fmt(dag.edges)} edges, imported in ${fmt(dag.importMs / 1000, 2)} s; ` +
        `${fmt(dag.completed)} completed${dag.timedOut ? " (time limit)" : ""} in ${fmt(dag.elapsedMs / 1000, 2)} s ` +
        `(${fmt(dag.tasksPerSecond)} tasks/s, cycle p50 ${fmt(dag.cycleP50Ms, 1)} ms, p99 ${fmt(dag.cycleP99Ms, 1)} ms, ` +
        `host CPU ${fmt(dag.cpuMsPerTask, 2)} ms/task); DONE in the table: ${fmt(dag.done)}; ` +
        `errors ${dag.errors}${dag.lastError ? ` (${dag.lastError})` : ""}; load ${dag.load}.`,
    );
  }
  await sleep(2000);
  result.idleWarmMb = host.rssMb();
  if (only.has("parked")) {
    const parked = await measureParked(ctx, {
      count: int("parked"),
      settleMs: 5000,
      claimWaitMs: CLAIM_WAIT_MS,
      // workerd queues a burst before it touches the database; a slower pace keeps it under the
      // server's max_connections (see measureParked).
      rampPauseMs: host.name === "node" ? 50 : 300,
    });
    result.parked = parked;
    notes.push(
      `Parked: ${parked.parked} claims from as many registered workers, sent in waves of 20; RSS ${fmt(parked.rssBeforeMb, 1)} → ` +
        `${fmt(parked.rssParkedMb, 1)} MB; ${parked.answeredEarly} answered before the import, ${parked.gotTask} got a ` +
        `task after it, ${parked.errors} failed${parked.lastError ? ` (${parked.lastError})` : ""}; ` +
        `load ${parked.load}.`,
    );
  }
  return result;
}

/** 100 sequential `GET /health` after 20 warm-up ones: the host's floor for a request that reads the database. */
async function healthRoundTrip(url) {
  const times = [];
  for (let i = 0; i < 120; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
    await response.text();
    if (i >= 20) times.push(performance.now() - started);
  }
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}
