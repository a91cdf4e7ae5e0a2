import * as schema from "@whilly/schema";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import { startPglite } from "../open/embedded.js";
import type { Store } from "../store.js";

/** One database for a test file, emptied before each test. */
export type StoreFixture = {
  /** Empties every table and returns a store over it; closing that store is a no-op. */
  fresh(): Promise<Store>;
  /** Closes the connection or pool. */
  close(): Promise<void>;
  /** The database under the stores, for tests that must set what no store operation can (e.g. old timestamps). */
  readonly db: Db;
};

/**
 * An in-memory PGlite, migrated once; started from the template in `WHILLY_CACHE_DIR` (which the test
 * run's global setup makes) when it is set.
 */
export async function openPgliteFixture(): Promise<StoreFixture> {
  const { client, db } = await startPglite(undefined, process.env.WHILLY_CACHE_DIR || undefined);
  return fixture(db, "pglite", () => client.close());
}

/** A pool on an already migrated Postgres database (e.g. a copy of the test template). */
export async function openPostgresFixture(
  url: string,
  options: { max?: number } = {},
): Promise<StoreFixture> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 25 });
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return fixture(db, "postgres", () => pool.end());
}

function fixture(db: Db, driver: Store["driver"], close: () => Promise<void>): StoreFixture {
  return {
    async fresh() {
      await db.execute(
        sql`TRUNCATE events, task_deps, tasks, plans, workers, read_tokens, worker_pauses RESTART IDENTITY CASCADE`,
      );
      return createStore(db, { driver, close: async () => {} });
    },
    close,
    db,
  };
}
