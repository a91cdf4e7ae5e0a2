import type * as schema from "@whilly/schema";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * A drizzle database over whilly's schema, whatever the driver: node-postgres, PGlite and the Neon
 * drivers all fit, and so does a transaction handle, so every operation takes one `Db` and can run
 * inside or outside a transaction.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction handle, as `db.transaction(fn)` passes it to `fn`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
