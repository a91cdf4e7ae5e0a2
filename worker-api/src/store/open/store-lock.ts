import { randomUUID } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { StoreLocked } from "@whilly/core";

/** Who holds a lock: written whole into the lock file before it appears. */
type Owner = { pid: number; hostname: string; startedAt: string; token: string };

/** A held lock on an embedded data directory. */
export type StoreLock = {
  /** The lock file, `<dataDir>.lock`. */
  readonly path: string;
  /** Removes the lock file if this process still owns it; safe to call twice. */
  release(): void;
};

const ATTEMPTS = 5;

/** The lock file of a data directory: beside it, so PGlite's initdb sees an empty directory. */
export function lockPathFor(dataDir: string): string {
  return `${resolve(dataDir)}.lock`;
}

/**
 * Makes this process the one owner of an embedded data directory. PGlite has no lock of its own, and
 * a second process writing the same files loses rows, so whilly refuses a second opener.
 *
 * The lock file appears atomically with its whole content (written to a private file, then hard-linked
 * into place, which fails if it exists) and names pid, hostname and start time. A lock whose pid is dead
 * on this host was left by a killed process and is taken over; one from another host cannot be checked
 * and counts as held. The lock goes on `release()` and when the process exits normally; after SIGKILL
 * the next opener takes it over.
 * @throws {StoreLocked} with the owner's pid when a live process holds the directory.
 */
export function acquireStoreLock(dataDir: string): StoreLock {
  const path = lockPathFor(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  const me: Owner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (tryCreate(path, me)) return holding(path, me);
    const owner = readOwner(path);
    if (owner === "gone") continue;
    if (owner !== "unreadable" && isLive(owner)) throw new StoreLocked(resolve(dataDir), owner.pid);
    takeOver(path, owner, me);
  }
  throw new StoreLocked(resolve(dataDir), undefined);
}

function tryCreate(path: string, me: Owner): boolean {
  const draft = `${path}.${me.token}.tmp`;
  writeFileSync(draft, `${JSON.stringify(me)}\n`, { mode: 0o644 });
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

function holding(path: string, me: Owner): StoreLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    const owner = readOwner(path);
    if (typeof owner === "object" && owner.token === me.token) unlinkQuietly(path);
  };
  process.on("exit", release);
  return { path, release };
}

function readOwner(path: string): Owner | "gone" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (codeOf(error) === "ENOENT") return "gone";
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<Owner>;
    if (
      typeof owner.pid === "number" &&
      typeof owner.hostname === "string" &&
      typeof owner.token === "string"
    ) {
      return owner as Owner;
    }
  } catch {
    // Not written by whilly (every lock appears whole); it names no owner to wait for.
  }
  return "unreadable";
}

/** True unless the owner is a process on this host that no longer exists. */
function isLive(owner: Owner): boolean {
  if (owner.hostname !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) !== "ESRCH";
  }
}

/**
 * Removes a stale lock without removing a fresh one that a racing process put in its place: the file
 * is moved aside first and checked; if it turns out to be someone else's new lock, it goes back.
 */
function takeOver(path: string, stale: Owner | "unreadable", me: Owner): void {
  const aside = `${path}.${me.token}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return;
    throw error;
  }
  const moved = readOwner(aside);
  const same =
    (stale === "unreadable" && moved === "unreadable") ||
    (typeof stale === "object" && typeof moved === "object" && moved.token === stale.token);
  if (!same) {
    try {
      linkSync(aside, path);
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw error;
    }
  }
  unlinkQuietly(aside);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: the outcome wanted.
  }
}

function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}
