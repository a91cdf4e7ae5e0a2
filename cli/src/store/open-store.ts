import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigurationError, StoreLocked } from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import { connectLocalStore, openEmbeddedStore, openPostgresStore } from "@whilly/worker-api";
import type { Io } from "../io.js";
import type { CliSettings } from "../settings.js";
import { findWorkspace, prepareWhillyDir } from "./workspace-root.js";

/** How a command uses the store. */
export type StoreUse = {
  /**
   * The command only reads or changes stored data: an embedded store that does not exist yet is an
   * error rather than created, since run in the wrong directory it would find nothing and leave a
   * `.whilly/` behind.
   */
  readonly mustExist?: boolean | undefined;
  /**
   * The command must own the embedded store itself (`whilly run`, which takes over what a run that is
   * gone left claimed, and `whilly server`): never served by another process, so it fails with
   * `StoreLocked` while one owns it.
   */
  readonly own?: boolean | undefined;
};

/** How often a command that found the store locked looks for its owner's socket (ms). */
const SOCKET_POLL_MS = 50;

/**
 * Opens the store for a command: Postgres when `WHILLY_DATABASE_URL` is set, else the embedded PGlite
 * store in `.whilly/pgdata` at the repository root (created, locked and migrated on first use, unless
 * `use.mustExist`; a new one starts from the template in `settings.cacheDir`). While another whilly
 * process of this user owns the embedded store (`whilly run`, `whilly server`, any command), the
 * store it serves on its local socket is used instead (docs/cli.md), unless `use.own`; this process,
 * when it owns the store, serves it so in turn until it closes it.
 * @throws {ConfigurationError} when `use.mustExist` and there is no embedded store (exit 2).
 * @throws {StoreLocked} when another process owns the embedded store and does not serve it (or `use.own`).
 * @throws {StoreUnavailable} when Postgres cannot be reached.
 */
export async function openCliStore(settings: CliSettings, io: Io, use: StoreUse = {}): Promise<Store> {
  if (settings.databaseUrl) return openPostgresStore(settings.databaseUrl);
  const layout = findWorkspace(io.cwd);
  const dataDir = join(layout.whillyDir, "pgdata");
  if (use.mustExist && !existsSync(dataDir)) {
    throw new ConfigurationError(`no whilly store in ${layout.root}: .whilly/ does not exist`, {
      hint: "run `whilly plan import <file>` (or `whilly run <file>`) here first, or set WHILLY_DATABASE_URL to use a Postgres server",
    });
  }
  if (!use.own) {
    const served = await connectLocalStore(layout.whillyDir);
    if (served) return served;
  }
  prepareWhillyDir(layout);
  if (!existsSync(dataDir))
    io.err.write(`whilly: creating the embedded store in ${layout.whillyDir} (a few seconds, once)\n`);
  try {
    return await openEmbeddedStore(dataDir, { cacheDir: settings.cacheDir, serveLocally: layout.whillyDir });
  } catch (error) {
    // An owner on this host serves the store from right after it took the lock: look a little while.
    if (use.own || !(error instanceof StoreLocked) || error.holder?.otherHost !== false) throw error;
    const served = await servedWithin(layout.whillyDir, settings.storeSocketWaitMs);
    if (served) return served;
    throw error;
  }
}

async function servedWithin(whillyDir: string, waitMs: number): Promise<Store | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const served = await connectLocalStore(whillyDir);
    if (served || Date.now() >= deadline) return served;
    await new Promise((resolve) => setTimeout(resolve, SOCKET_POLL_MS));
  }
}
