// The bench's database: a fresh one per host run (migrated with whilly's own migrator, dropped after),
// and what the bench reads from the server about it: commit counters, connections, and audit checks.
import { migratePostgres } from "@whilly/worker-api";
import pg from "pg";
import { sleep } from "./stats.mjs";

/**
 * Postgres flushes a backend's transaction counters to pg_stat_database at most once a second while it
 * is busy and within a second of it going idle; reading after this pause counts everything before it.
 */
const STATS_FLUSH_MS = 1500;

/**
 * Creates and migrates a fresh database `whilly_bench_<label>_<pid>` on the server of `adminUrl`.
 * @param {string} adminUrl a URL of a database the bench may create databases from (e.g. `postgres`).
 * @param {string} label e.g. `node` or `workerd`.
 * @returns {Promise<BenchDatabase>}
 */
export async function createBenchDatabase(adminUrl, label) {
  const name = `whilly_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on("error", () => {});
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migratePostgres(url.toString());
  return new BenchDatabase(admin, name, url.toString());
}

/** A bench database and an admin connection (to another database, so it adds no commits here). */
export class BenchDatabase {
  /** @param {pg.Client} admin @param {string} name @param {string} url */
  constructor(admin, name, url) {
    this.admin = admin;
    this.name = name;
    this.url = url;
  }

  /**
   * This database's counters so far, after waiting for them to flush: committed transactions and
   * sessions (connections) opened. A new connection's startup commits one catalog transaction too.
   * @returns {Promise<{ commits: number, sessions: number }>}
   */
  async counters() {
    await sleep(STATS_FLUSH_MS);
    const result = await this.admin.query(
      "SELECT xact_commit::bigint AS commits, sessions::bigint AS sessions FROM pg_stat_database WHERE datname = $1",
      [this.name],
    );
    const row = result.rows[0] ?? {};
    return { commits: Number(row.commits ?? 0), sessions: Number(row.sessions ?? 0) };
  }

  /** Open server connections to this database, the bench's own excluded. */
  async connections() {
    const result = await this.admin.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name <> 'whilly-bench'",
      [this.name],
    );
    return result.rows[0].n;
  }

  /** `SELECT version()` of the server. */
  async serverVersion() {
    const result = await this.admin.query("SHOW server_version");
    return result.rows[0].server_version;
  }

  /**
   * Reads the audit log of a drained plan: every CLAIM event must come after the COMPLETE event of each
   * of the task's dependencies (event ids are the canonical order), and no task may be claimed or
   * completed twice.
   * @param {string} planId
   * @returns {Promise<{ early: number, reclaimed: number, doubleDone: number, done: number, edges: number }>}
   */
  async checkDrainedPlan(planId) {
    const client = await this.open();
    try {
      const result = await client.query(
        `WITH claims AS (
           SELECT task_id, id FROM events WHERE plan_id = $1 AND event_type = 'CLAIM'),
         completes AS (
           SELECT task_id, max(id) AS id, count(*) AS n FROM events
           WHERE plan_id = $1 AND event_type = 'COMPLETE' GROUP BY task_id)
         SELECT
           (SELECT count(*) FROM task_deps d
              JOIN claims c ON c.task_id = d.task_id
              LEFT JOIN completes p ON p.task_id = d.depends_on
            WHERE d.plan_id = $1 AND (p.id IS NULL OR c.id < p.id))::int AS early,
           (SELECT count(*) FROM (SELECT task_id FROM claims GROUP BY task_id HAVING count(*) > 1) x)::int
             AS reclaimed,
           (SELECT count(*) FROM completes WHERE n > 1)::int AS double_done,
           (SELECT count(*) FROM tasks WHERE plan_id = $1 AND status = 'DONE')::int AS done,
           (SELECT count(*) FROM task_deps WHERE plan_id = $1)::int AS edges`,
        [planId],
      );
      const row = result.rows[0];
      return {
        early: row.early,
        reclaimed: row.reclaimed,
        doubleDone: row.double_done,
        done: row.done,
        edges: row.edges,
      };
    } finally {
      await client.end();
    }
  }

  /**
   * Per task of a chain, the database's own view of a hop: the COMPLETE event of task k-1 to the CLAIM
   * event of task k, by `created_at` (each is `now()`, its transaction's start).
   * @param {string} planId
   * @returns {Promise<number[]>} milliseconds.
   */
  async chainHopsMs(planId) {
    const client = await this.open();
    try {
      const result = await client.query(
        `SELECT extract(epoch FROM (c.created_at - p.created_at)) * 1000 AS ms
         FROM task_deps d
         JOIN events c ON c.plan_id = d.plan_id AND c.task_id = d.task_id AND c.event_type = 'CLAIM'
         JOIN events p ON p.plan_id = d.plan_id AND p.task_id = d.depends_on AND p.event_type = 'COMPLETE'
         WHERE d.plan_id = $1`,
        [planId],
      );
      return result.rows.map((row) => Number(row.ms));
    } finally {
      await client.end();
    }
  }

  /** Drops the database (its connections are cut) and closes the admin connection. */
  async drop() {
    try {
      await this.admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    } finally {
      await this.admin.end().catch(() => {});
    }
  }

  /** @returns {Promise<pg.Client>} a connection to the bench database, tagged as the bench's. */
  async open() {
    const client = new pg.Client({ connectionString: this.url, application_name: "whilly-bench" });
    client.on("error", () => {});
    await client.connect();
    return client;
  }
}
