import * as schema from "@whilly/schema";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import type { Store } from "../store.js";

/**
 * A real store over a node-postgres pool aimed at `url`, opened without the checks `openPostgresStore`
 * makes, so a test can watch what callers see when the database does not answer (e.g. a closed port).
 */
export function openUnreachableStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 2_000, max: 1 });
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return createStore(db, { driver: "postgres", close: () => pool.end() });
}
