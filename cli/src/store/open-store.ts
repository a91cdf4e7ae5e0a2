import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "@whilly/worker-api";
import { openEmbeddedStore, openPostgresStore } from "@whilly/worker-api";
import type { Io } from "../io.js";
import type { CliSettings } from "../settings.js";
import { findWorkspace, prepareWhillyDir } from "./workspace-root.js";

/**
 * Opens the store for a command: Postgres when `WHILLY_DATABASE_URL` is set, else the embedded PGlite
 * store in `.whilly/pgdata` at the repository root (created, locked and migrated on first use).
 * @throws {StoreLocked} when another whilly process owns the embedded store.
 * @throws {StoreUnavailable} when Postgres cannot be reached.
 */
export async function openCliStore(settings: CliSettings, io: Io): Promise<Store> {
  if (settings.databaseUrl) return openPostgresStore(settings.databaseUrl);
  const layout = findWorkspace(io.cwd);
  prepareWhillyDir(layout);
  const dataDir = join(layout.whillyDir, "pgdata");
  if (!existsSync(dataDir))
    io.err.write(`whilly: creating the embedded store in ${layout.whillyDir} (a few seconds, once)\n`);
  return openEmbeddedStore(dataDir);
}
