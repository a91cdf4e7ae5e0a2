import { randomUUID } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { StoreLocked } from "@whilly/core";

/**
 * Who holds a lock: written whole into the lock file before it appears. `process` (Linux only) is the
 * holder's boot id and start time, which tell a live holder from another process given its pid later.
 */
type Owner = {
  pid: number;
  hostname: string;
  startedAt: string;
  token: string;
  process?: string;
  /** The whilly command holding it (`run`, `dashboard`), named in the error of another opener. */
  command?: string;
};

/** Options of {@link acquireStoreLock}. */
export type StoreLockOptions = {
  /** The whilly command taking the lock (`run`, `dashboard`): recorded so a refused opener can name it. */
  readonly command?: string | undefined;
};

/** A held lock on an embedded data directory. */
export type StoreLock = {
  /** The lock file, `<dataDir>.lock`. */
  readonly path: string;
  /** Removes the lock file if this process still owns it; safe to call twice. */
  release(): void;
};

const ATTEMPTS = 5;

/** Tokens of the locks this process holds: a lock naming this pid with another token is stale. */
const held = new Set<string>();

/** The lock file of a data directory: beside it, so PGlite's initdb sees an empty directory. */
export function lockPathFor(dataDir: string): string {
  return `${resolve(dataDir)}.lock`;
}

/**
 * Makes this process the one owner of an embedded data directory. PGlite has no lock of its own, and
 * a second process writing the same files loses rows, so whilly refuses a second opener.
 *
 * The lock file appears atomically with its whole content (written to a private file, then hard-linked
 * into place, which fails if it exists) and names pid, hostname and start time. A lock from this host
 * whose holder is provably gone was left by a killed process and is taken over: its pid is dead, or is
 * this process's own (a restarted container often gets the same pid), or (on Linux) now belongs to a
 * process that started later or in another boot. A lock from another host cannot be checked and counts
 * as held; the error names the lock file, so a person who knows that host is gone (a replaced container
 * on the same volume) can delete it. The lock goes on `release()` and when the process exits normally.
 * @throws {StoreLocked} naming the lock file and its holder (pid, host, since when) while it may live.
 */
export function acquireStoreLock(dataDir: string, options: StoreLockOptions = {}): StoreLock {
  const path = lockPathFor(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  const identity = processIdentity(process.pid);
  const me: Owner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
    ...(identity === undefined ? {} : { process: identity }),
    ...(options.command === undefined ? {} : { command: options.command }),
  };
  let last: Owner | "unreadable" | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (tryCreate(path, me)) return holding(path, me);
    const owner = readOwner(path);
    if (owner === "gone") continue;
    last = owner;
    if (owner !== "unreadable" && isLive(owner)) throw locked(dataDir, path, owner);
    takeOver(path, owner, me);
  }
  throw locked(dataDir, path, last === "unreadable" ? undefined : last);
}

function locked(dataDir: string, path: string, owner: Owner | undefined): StoreLocked {
  const holder = owner && {
    pid: owner.pid,
    hostname: owner.hostname,
    startedAt: typeof owner.startedAt === "string" ? owner.startedAt : undefined,
    otherHost: owner.hostname !== hostname(),
    command: typeof owner.command === "string" ? owner.command : undefined,
  };
  return new StoreLocked(resolve(dataDir), path, holder);
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
  held.add(me.token);
  const release = () => {
    if (!held.has(me.token)) return;
    held.delete(me.token);
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

/** True unless the owner is provably gone: a process on this host that no longer runs. */
function isLive(owner: Owner): boolean {
  if (owner.hostname !== hostname()) return true;
  if (owner.pid === process.pid) return held.has(owner.token);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: a process of another user runs under that pid; it may be the holder.
    if (codeOf(error) === "ESRCH") return false;
  }
  if (typeof owner.process !== "string") return true;
  const now = processIdentity(owner.pid);
  return now === undefined || now === owner.process;
}

/**
 * Linux: `<boot id>:<start time in clock ticks since boot>` of a running process, which no later
 * process under the same pid shares; `undefined` where `/proc` does not tell (other systems).
 */
function processIdentity(pid: number): string | undefined {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name start at the third; the start time is the 22nd.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return boot && start ? `${boot}:${start}` : undefined;
  } catch {
    return undefined;
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
