import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigurationError, StoreLocked } from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import { connectLocalStore, openEmbeddedStore, openPostgresStore, requestHandOver } from "@whilly/worker-api";
import type { Io } from "../io.js";
import type { CliSettings } from "../settings.js";
import { type OpenReason, switchingStore } from "./switching-store.js";
import { findWorkspace, prepareWhillyDir, type WorkspaceLayout } from "./workspace-root.js";

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
   * gone left claimed, and `whilly server`): never served by another process. An owner that is not
   * (`whilly dashboard`, `whilly events -f`, any other command) is asked to hand the store over; one
   * that is fails it with `StoreLocked`. Such a command keeps the store until it closes it.
   */
  readonly own?: boolean | undefined;
  /** The command's name (`run`, `dashboard`), recorded in the lock for other commands' errors. */
  readonly command?: string | undefined;
};

/** How often a command that found the store locked looks for its owner's socket or lock (ms). */
const POLL_MS = 50;

/**
 * Opens the store for a command: Postgres when `WHILLY_DATABASE_URL` is set, else the embedded PGlite
 * store in `.whilly/pgdata` at the repository root (created, locked and migrated on first use, unless
 * `use.mustExist`; a new one starts from the template in `settings.cacheDir`). While another whilly
 * process of this user owns the embedded store, the store it serves on its local socket is used
 * instead (docs/cli.md); this process, when it owns the store, serves it so in turn until it closes
 * it. Without `use.own` the store returned follows the store across owners: it hands the store over
 * to a command that must own it and goes on through that one's socket, and when the owner it used
 * stops it reaches the next owner or opens the store itself (see {@link switchingStore}).
 * @throws {ConfigurationError} when `use.mustExist` and there is no embedded store (exit 2).
 * @throws {StoreLocked} when another process owns the embedded store and neither serves it nor (for
 *   `use.own`) hands it over within `settings.storeHandOverWaitMs`.
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
  const place: Place = { settings, io, layout, dataDir, command: use.command };
  if (use.own) return openOwned(place);
  return switchingStore((reason, switchAway) => openShared(place, reason, switchAway));
}

type Place = {
  readonly settings: CliSettings;
  readonly io: Io;
  readonly layout: WorkspaceLayout;
  readonly dataDir: string;
  readonly command: string | undefined;
};

/**
 * Opens the embedded store to own it, asking a yielding owner to hand it over; asked again while
 * another yielding command takes the lock first (one that used the owner which handed over).
 */
async function openOwned(place: Place): Promise<Store> {
  const { whillyDir } = place.layout;
  const waitMs = place.settings.storeHandOverWaitMs;
  let deadline: number | undefined;
  for (;;) {
    try {
      return await openEmbedded(place, undefined);
    } catch (error) {
      if (!(error instanceof StoreLocked) || error.holder?.otherHost !== false) throw error;
      const left = deadline === undefined ? waitMs : Math.max(POLL_MS, deadline - Date.now());
      const answer = await requestHandOver(whillyDir, left);
      // Refused by an exclusive owner, or (asked first) by a holder that does not serve the store.
      if (answer === "refused" || (deadline === undefined && answer === "no-answer")) throw error;
      deadline ??= Date.now() + waitMs;
      if (Date.now() >= deadline) throw error;
      await pause(POLL_MS);
    }
  }
}

/**
 * One backing of the switching store of a command that shares the store: the owner's socket when
 * there is one, else the store opened here (yielding it to a command that must own it).
 */
async function openShared(
  place: Place,
  reason: OpenReason,
  switchAway: (reason: OpenReason) => void,
): Promise<Store> {
  const { whillyDir } = place.layout;
  const onLost = () => switchAway({ kind: "lost" });
  if (reason.kind === "handed-over") {
    // The new owner takes the lock once this process released it, then binds its socket.
    await reason.released.catch(() => {});
    const served = await servedWithin(whillyDir, place.settings.storeHandOverWaitMs, onLost);
    if (served) return served;
  }
  // A stopping owner closes its socket before it releases the lock: look again for a while.
  const deadline = reason.kind === "first" ? 0 : Date.now() + place.settings.storeHandOverWaitMs;
  const socketWaitMs = reason.kind === "first" ? place.settings.storeSocketWaitMs : 0;
  for (;;) {
    const store = await servedOrOpened();
    if (store !== "locked") return store;
    await pause(POLL_MS);
  }

  /** The owner's socket, else the store opened here; `locked` while an owner keeps it unserved. */
  async function servedOrOpened(): Promise<Store | "locked"> {
    const served = await connectLocalStore(whillyDir, { onLost });
    if (served) return served;
    try {
      return await openEmbedded(place, (released) => switchAway({ kind: "handed-over", released }));
    } catch (error) {
      // An owner on this host serves the store from right after it took the lock: look a little while.
      if (!(error instanceof StoreLocked) || error.holder?.otherHost !== false) throw error;
      const served = await servedWithin(whillyDir, socketWaitMs, onLost);
      if (served) return served;
      if (Date.now() >= deadline) throw error;
      return "locked";
    }
  }
}

function openEmbedded(place: Place, onHandOver: ((released: Promise<void>) => void) | undefined) {
  const { settings, io, layout, dataDir } = place;
  prepareWhillyDir(layout);
  if (!existsSync(dataDir))
    io.err.write(`whilly: creating the embedded store in ${layout.whillyDir} (a few seconds, once)\n`);
  return openEmbeddedStore(dataDir, {
    cacheDir: settings.cacheDir,
    serveLocally: layout.whillyDir,
    command: place.command,
    onHandOver,
  });
}

async function servedWithin(
  whillyDir: string,
  waitMs: number,
  onLost: () => void,
): Promise<Store | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const served = await connectLocalStore(whillyDir, { onLost });
    if (served || Date.now() >= deadline) return served;
    await pause(POLL_MS);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
