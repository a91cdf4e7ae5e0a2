import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { migrationsFolder } from "../migrations-folder.js";
import { migratePostgres } from "../open/postgres.js";

/**
 * Test databases on a real Postgres server: a migrated template made once per migration set, and a
 * fresh copy of it per test file (`CREATE DATABASE ... TEMPLATE`, much faster than migrating), dropped
 * `WITH (FORCE)` afterwards. Used by `test/global-setup.ts` and `test/support/db.ts`.
 */

/** Session lock key under which concurrent test runs build the template one at a time. */
const TEMPLATE_LOCK = 7_256_311_905;

/** @returns `undefined` when Postgres at `url` answers, else why not. */
export async function probePostgres(url: string, timeoutMs = 3000): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Makes sure a migrated template for the current migrations exists, building it under a temporary name
 * and renaming it when complete, so a crash never leaves a half-migrated template behind.
 * @returns the template's database name.
 */
export async function prepareTemplate(adminUrl: string): Promise<string> {
  const name = `whilly_tpl_${migrationsDigest()}`;
  return withAdmin(adminUrl, async (admin) => {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount === 0) {
        const draft = `${name}_draft_${process.pid}`;
        await admin.query(`DROP DATABASE IF EXISTS ${quote(draft)} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${quote(draft)}`);
        await migratePostgres(databaseUrl(adminUrl, draft));
        await admin.query(`ALTER DATABASE ${quote(draft)} RENAME TO ${quote(name)}`);
      }
      return name;
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
}

/**
 * A fresh database copied from `template`, or empty (never migrated) without one.
 * @returns its name and URL.
 */
export async function createDatabaseFrom(
  adminUrl: string,
  template: string | undefined,
): Promise<{ name: string; url: string }> {
  const name = `whilly_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const from = template === undefined ? "" : ` TEMPLATE ${quote(template)}`;
  await withAdmin(adminUrl, async (admin) => {
    // Copying fails while another session is connected to the template (55006); those are brief.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${quote(name)}${from}`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== "55006" || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  return { name, url: databaseUrl(adminUrl, name) };
}

/** Drops a test database, ending its connections. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`));
}

/** `url` pointing at database `name` on the same server. */
export function databaseUrl(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Short digest of the migration files: a schema change makes a new template. */
function migrationsDigest(): string {
  const folder = migrationsFolder();
  const hash = createHash("sha256");
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    hash.update(file).update(readFileSync(join(folder, file)));
  }
  return hash.digest("hex").slice(0, 12);
}

async function withAdmin<T>(adminUrl: string, use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on("error", () => {});
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end().catch(() => {});
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
