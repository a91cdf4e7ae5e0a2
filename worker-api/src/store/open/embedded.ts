import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { StoreUnavailable } from "@whilly/core";
import * as schema from "@whilly/schema";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import { type LocalStoreServer, serveStoreLocally } from "../local-socket/serve.js";
import { applyMigrations } from "../migrate.js";
import { pgliteReadyListener } from "../ready/listen-pglite.js";
import { EVENTS_CHANNEL } from "../ready/signal-ready.js";
import type { Store } from "../store.js";
import { gatedStore } from "./hand-over-gate.js";
import { openFailure } from "./open-failure.js";
import { acquireStoreLock, type StoreLock } from "./store-lock.js";
import { readTemplate, type StoreTemplate, saveTemplate, storeTemplate } from "./template.js";

/** Options of {@link openEmbeddedStore}. */
export type EmbeddedStoreOptions = {
  /**
   * Where a migrated empty store is kept to start new ones from (see {@link StoreTemplate}); none
   * when `undefined`: every new store then runs PGlite's whole first start.
   */
  readonly cacheDir?: string | undefined;
  /**
   * The whilly directory (`.whilly/`) whose local socket serves this store to other whilly commands
   * of this user while this process owns it (see `serveStoreLocally`, docs/cli.md); served to no one
   * when `undefined`.
   */
  readonly serveLocally?: string | undefined;
  /** The whilly command opening it (`run`, `dashboard`), recorded in the lock for other openers' errors. */
  readonly command?: string | undefined;
  /**
   * Makes this owner yield: when a command that must own the store asks over the local socket (see
   * `requestHandOver`), the store is handed over. `onHandOver` is called as that begins, with a
   * promise settled once the lock is released; from then on the returned store refuses every call
   * with `StoreUnavailable` (calls under way finish first), so its user reconnects to the new owner.
   * An owner without it (`whilly run`, `whilly server`) refuses hand-over.
   */
  readonly onHandOver?: ((released: Promise<void>) => void) | undefined;
};

/**
 * Opens the embedded store: PGlite (Postgres compiled to WebAssembly) with its files in `dataDir`
 * (whilly uses `.whilly/pgdata`), migrated on open. This process becomes the directory's one owner
 * until `close()` (see {@link acquireStoreLock}). A new directory takes seconds to initialise (about
 * one when `options.cacheDir` holds a template) and PGlite holds some 350 MB, so open it once per
 * command.
 * @throws {StoreLocked} when another live process has it open.
 * @throws {ConfigurationError} when Postgres cannot start on the directory's files (unreadable,
 *   read-only, damaged, not a store); a file system fault as a Node-shaped system error
 *   (`code`, `path`), see {@link openFailure}.
 */
export async function openEmbeddedStore(dataDir: string, options: EmbeddedStoreOptions = {}): Promise<Store> {
  const lock = acquireStoreLock(dataDir, { command: options.command });
  // Bound right after the lock, so a command that finds the lock finds the socket too; its calls
  // wait until the store is open.
  let opened: { resolve: (store: Store) => void; reject: (error: unknown) => void } | undefined;
  const opening = new Promise<Store>((resolve, reject) => (opened = { resolve, reject }));
  opening.catch(() => {});
  let handOver: (() => Promise<void>) | undefined;
  const onHandOver = options.onHandOver;
  const server =
    options.serveLocally === undefined
      ? undefined
      : serveStoreLocally(options.serveLocally, opening, {
          handOver: onHandOver && (() => handOver?.() ?? Promise.resolve()),
        });
  try {
    const cacheDir = isNew(dataDir) ? options.cacheDir : undefined;
    mkdirSync(dataDir, { recursive: true });
    const store = await openPglite(await startPglite(dataDir, cacheDir), lock, server);
    opened?.resolve(store);
    if (onHandOver === undefined) return store;
    const gate = gatedStore(
      store,
      () =>
        new StoreUnavailable(
          `this process handed the embedded store in ${dataDir} to another whilly process`,
          {
            hint: "run the command again: it reaches the store through its new owner",
          },
        ),
    );
    handOver = async () => {
      const released = (async () => {
        await gate.shut();
        // Stops serving (waiting for the socket's calls under way), closes PGlite, releases the lock.
        await store.close();
      })();
      onHandOver(released);
      await released;
    };
    return gate.store;
  } catch (error) {
    opened?.reject(error);
    await server?.close();
    lock.release();
    throw openFailure(error, dataDir);
  }
}

/**
 * An embedded store held in memory only, gone on close: for tests and throwaway runs. Started from the
 * template in `options.cacheDir` when there is one.
 */
export async function openInMemoryStore(options: EmbeddedStoreOptions = {}): Promise<Store> {
  return openPglite(await startPglite(undefined, options.cacheDir), undefined, undefined);
}

/**
 * A migrated PGlite on `dataDir` (in memory when `undefined`), which must hold nothing when `cacheDir`
 * is given: started from the template there when there is one; else PGlite's whole first start, kept
 * as the template for the next. A template PGlite cannot start from is replaced.
 */
export async function startPglite(
  dataDir: string | undefined,
  cacheDir: string | undefined,
): Promise<{ client: PGlite; db: Db }> {
  const template = cacheDir === undefined ? undefined : storeTemplate(cacheDir);
  const tarball = template === undefined ? undefined : readTemplate(template);
  if (tarball !== undefined) {
    try {
      const client = new PGlite(dataDir ?? "memory://", { loadDataDir: tarball });
      return { client, db: await migratedPglite(client) };
    } catch {
      // A damaged template (or a fault of the directory, which the full start reports): start in
      // full, which writes a good template again.
      if (dataDir !== undefined) {
        for (const entry of readdirSync(dataDir))
          rmSync(join(dataDir, entry), { recursive: true, force: true });
      }
    }
  }
  const client = new PGlite(dataDir ?? "memory://");
  const db = await migratedPglite(client);
  if (template !== undefined) await saveTemplate(client, template);
  return { client, db };
}

/** True when `dataDir` holds nothing yet (absent or empty). */
function isNew(dataDir: string): boolean {
  try {
    return readdirSync(dataDir).length === 0;
  } catch (error) {
    // Any other fault (not a directory, no permission) is left to the ordinary start to report.
    return (error as { code?: unknown }).code === "ENOENT";
  }
}

async function openPglite(
  started: { client: PGlite; db: Db },
  lock: StoreLock | undefined,
  server: LocalStoreServer | undefined,
): Promise<Store> {
  const { client, db } = started;
  let closing: Promise<void> | undefined;
  return createStore(db, {
    driver: "pglite",
    listenForReady: pgliteReadyListener(client),
    listenForEvents: pgliteReadyListener(client, EVENTS_CHANNEL),
    // Once: a store handed over is closed already when its user closes it.
    close: () =>
      (closing ??= (async () => {
        try {
          // Calls under way from other processes finish before the database closes.
          await server?.close();
          await client.close();
        } finally {
          lock?.release();
        }
      })()),
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
