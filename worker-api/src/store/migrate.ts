import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { Db } from "./db.js";
import { migrationsFolder } from "./migrations-folder.js";

/** Any 64-bit key unique to whilly: migrations in two processes at once queue on it. */
const MIGRATION_LOCK = 7_256_311_904;

/**
 * Applies the migrations not yet applied, under a session advisory lock so concurrent callers do not
 * race on drizzle's bookkeeping table. `db` must hold one connection for the whole call (a dedicated
 * client, or PGlite) so the lock and the migration share a session.
 * @param runMigrator calls the driver's drizzle migrator (`drizzle-orm/node-postgres/migrator` or
 *   `drizzle-orm/pglite/migrator`) on `db` with the given folder.
 * @returns how many migrations this call applied.
 */
export async function applyMigrations(
  db: Db,
  runMigrator: (folder: string) => Promise<void>,
  folder = migrationsFolder(),
): Promise<number> {
  await db.execute(sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    const before = await appliedCount(db);
    await runMigrator(folder);
    return (await appliedCount(db)) - before;
  } finally {
    await db.execute(sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
  }
}

/** How many migrations whilly ships. */
export function shippedCount(folder = migrationsFolder()): number {
  return readMigrationFiles({ migrationsFolder: folder }).length;
}

/** How many migrations drizzle has recorded in this database; 0 when it never migrated it. */
export async function appliedCount(db: Db): Promise<number> {
  const table = rows(await db.execute(sql`SELECT to_regclass('drizzle.__drizzle_migrations')::text AS name`));
  if (typeof table[0]?.name !== "string") return 0;
  const counted = rows(await db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`));
  return Number(counted[0]?.n ?? 0);
}

/** Rows of a raw `db.execute` result; node-postgres, PGlite and Neon all put them on `rows`. */
function rows(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}
