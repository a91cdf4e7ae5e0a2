// The machine's floor at bench time: what Postgres itself does on this box right now (pgbench), and one
// node-postgres round trip. The control plane's numbers read best as ratios to these, since the
// machine is shared and its speed changes from run to run.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { percentile } from "./stats.mjs";

const run = promisify(execFile);
const PGBENCH_SECONDS = 5;

/**
 * Measures the floor in a scratch database (dropped afterwards).
 * @param {string} adminUrl
 * @returns {Promise<{ tpsC1?: number, tpsC8?: number, selectRoundTripUs: number, error?: string }>}
 *   `tpsC1`/`tpsC8`: pgbench simple-update (`-N`, prepared, scale 10) transactions per second with
 *   1 and 8 clients; `selectRoundTripUs`: median `SELECT 1` round trip through node-postgres, µs.
 */
export async function measureFloor(adminUrl) {
  const name = `whilly_bench_floor_${process.pid}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on("error", () => {});
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const result = { selectRoundTripUs: await selectRoundTripUs(url.toString()) };
    try {
      await run("pgbench", ["-i", "-q", "-s", "10", url.toString()], { timeout: 60_000 });
      result.tpsC1 = await pgbench(url.toString(), 1);
      result.tpsC8 = await pgbench(url.toString(), 8);
    } catch (error) {
      result.error = `pgbench: ${error instanceof Error ? error.message.split("\n")[0] : error}`;
    }
    return result;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end().catch(() => {});
  }
}

async function pgbench(url, clients) {
  const args = ["-n", "-N", "-M", "prepared", "-c", String(clients), "-j", String(Math.min(clients, 2))];
  const { stdout } = await run("pgbench", [...args, "-T", String(PGBENCH_SECONDS), url], { timeout: 60_000 });
  const match = /tps = ([\d.]+)/.exec(stdout);
  if (!match) throw new Error(`no tps in pgbench output: ${stdout.slice(0, 200)}`);
  return Number(match[1]);
}

/** Median of 2,000 sequential `SELECT 1` round trips after 200 warm-up ones, µs. */
async function selectRoundTripUs(url) {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    const times = [];
    for (let i = 0; i < 2200; i++) {
      const started = performance.now();
      await client.query("SELECT 1");
      if (i >= 200) times.push((performance.now() - started) * 1000);
    }
    return percentile(times, 50) ?? Number.NaN;
  } finally {
    await client.end();
  }
}
