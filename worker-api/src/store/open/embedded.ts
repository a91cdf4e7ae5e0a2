import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import * as schema from "@whilly/schema";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import { applyMigrations } from "../migrate.js";
import { pgliteReadyListener } from "../ready/listen-pglite.js";
import type { Store } from "../store.js";
import { openFailure } from "./open-failure.js";
import { acquireStoreLock, type StoreLock } from "./store-lock.js";

/**
 * Opens the embedded store: PGlite (Postgres compiled to WebAssembly) with its files in `dataDir`
 * (whilly uses `.whilly/pgdata`), migrated on open. This process becomes the directory's one owner
 * until `close()` (see {@link acquireStoreLock}). A new directory takes seconds to initialise and
 * PGlite holds some 350 MB, so open it once per command.
 * @throws {StoreLocked} when another live process has it open.
 * @throws {ConfigurationError} when Postgres cannot start on the directory's files (unreadable,
 *   read-only, damaged, not a store); a file system fault as a Node-shaped system error
 *   (`code`, `path`), see {@link openFailure}.
 */
export async function openEmbeddedStore(dataDir: string): Promise<Store> {
  const lock = acquireStoreLock(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true });
    return await openPglite(new PGlite(dataDir), lock);
  } catch (error) {
    lock.release();
    throw openFailure(error, dataDir);
  }
}

/** An embedded store held in memory only, gone on close: for tests and throwaway runs. */
export async function openInMemoryStore(): Promise<Store> {
  return openPglite(new PGlite(), undefined);
}

async function openPglite(client: PGlite, lock: StoreLock | undefined): Promise<Store> {
  const db = await migratedPglite(client);
  return createStore(db, {
    driver: "pglite",
    listenForReady: pgliteReadyListener(client),
    close: async () => {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  });
}

/**
 * A drizzle database over `client`, with whilly's migrations applied.
 * @throws whatever PGlite or the migration throws; the client is closed first.
 */
export async function migratedPglite(client: PGlite): Promise<Db> {
  try {
    await client.waitReady;
    const db = drizzle({ client, schema });
    await applyMigrations(db as unknown as Db, (folder) => migrate(db, { migrationsFolder: folder }));
    return db as unknown as Db;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}
