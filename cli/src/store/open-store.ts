import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import { openEmbeddedStore, openPostgresStore } from "@whilly/worker-api";
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
};

/**
 * Opens the store for a command: Postgres when `WHILLY_DATABASE_URL` is set, else the embedded PGlite
 * store in `.whilly/pgdata` at the repository root (created, locked and migrated on first use, unless
 * `use.mustExist`; a new one starts from the template in `settings.cacheDir`).
 * @throws {ConfigurationError} when `use.mustExist` and there is no embedded store (exit 2).
 * @throws {StoreLocked} when another whilly process owns the embedded store.
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
  prepareWhillyDir(layout);
  if (!existsSync(dataDir))
    io.err.write(`whilly: creating the embedded store in ${layout.whillyDir} (a few seconds, once)\n`);
  return openEmbeddedStore(dataDir, { cacheDir: settings.cacheDir });
}
