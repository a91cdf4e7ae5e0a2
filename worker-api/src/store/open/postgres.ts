import { ConfigurationError } from "@whilly/core";
import * as schema from "@whilly/schema";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import { translateError } from "../errors.js";
import { appliedCount, applyMigrations, shippedCount } from "../migrate.js";
import { postgresReadyListener } from "../ready/listen-postgres.js";
import { EVENTS_CHANNEL } from "../ready/signal-ready.js";
import type { Store } from "../store.js";
import { missingDatabaseError } from "./create-database.js";

/**
 * Opens the store on a Postgres server through a node-postgres pool. The schema must be migrated
 * (`whilly db migrate`, i.e. {@link migratePostgres}); the server is not migrated implicitly, since
 * several control planes may share it.
 * @param url a `postgres://` connection URL. @param options.max pool size (default 10).
 * @throws {StoreUnavailable} when the server cannot be reached.
 * @throws {ConfigurationError} when the database is missing (the hint says how to create it), refuses
 *   the login, or lacks migrations.
 */
export async function openPostgresStore(url: string, options: { max?: number } = {}): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  // An idle client's socket error (server restart) would otherwise crash the process; the next query
  // on that pool reports the failure instead.
  pool.on("error", () => {});
  // The pool's own listener covers idle clients only; a checked-out client whose connection drops (a
  // Postgres restart) would otherwise raise an unhandled 'error' and end the process. Its query fails
  // anyway and the store turns that into StoreUnavailable.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  try {
    const applied = await appliedCount(db);
    const shipped = shippedCount();
    if (applied < shipped) {
      throw new ConfigurationError(`the database has ${applied} of whilly's ${shipped} migrations applied`, {
        hint: "run `whilly db migrate` with the same WHILLY_DATABASE_URL",
      });
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw missingDatabaseError(url, error) ?? translateError(error);
  }
  return createStore(db, {
    driver: "postgres",
    close: () => pool.end(),
    listenForReady: postgresReadyListener(url),
    listenForEvents: postgresReadyListener(url, EVENTS_CHANNEL),
  });
}

/**
 * Applies whilly's migrations to a Postgres server (`whilly db migrate`); safe to run again and from
 * several processes at once.
 * @returns how many migrations were applied now (0 when it was up to date).
 * @throws {StoreUnavailable} @throws {ConfigurationError}
 */
export async function migratePostgres(url: string): Promise<{ applied: number }> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  try {
    await client.connect();
    const db = drizzle({ client, schema });
    const applied = await applyMigrations(db as unknown as Db, (folder) =>
      migrate(db, { migrationsFolder: folder }),
    );
    return { applied };
  } catch (error) {
    throw missingDatabaseError(url, error) ?? translateError(error);
  } finally {
    await client.end().catch(() => {});
  }
}
