import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { identify, isRunning, procAvailable } from "../runner/proc-table.js";

/** What a lock file holds: the process that took it, named for good (pid and start time). */
type Holder = { readonly pid: number; readonly startTime: number | null };

/** How often a waiting process looks at the lock again, ms; a setting so tests take no time. */
export const LOCK_POLL_MS = 50;

/**
 * Runs `section` holding the lock file at `path` (created with O_EXCL, holding `{pid, startTime}`), so
 * two `whilly run` processes on one repository and plan merge one at a time. A lock whose process is
 * gone (or whose pid now names another process) is stale and taken over. Waits, polling every `pollMs`.
 * @throws whatever `section` throws; the lock is released either way.
 */
export async function withFileLock<T>(
  path: string,
  section: () => Promise<T>,
  pollMs: number = LOCK_POLL_MS,
): Promise<T> {
  while (!tryTake(path)) await sleep(pollMs);
  try {
    return await section();
  } finally {
    rmSync(path, { force: true });
  }
}

function tryTake(path: string): boolean {
  const me: Holder = {
    pid: process.pid,
    startTime: procAvailable() ? (identify(process.pid)?.startTime ?? null) : null,
  };
  try {
    writeFileSync(path, JSON.stringify(me), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (holderAlive(path)) return false;
  // Stale: its process is gone. Another waiter may remove it at the same moment; O_EXCL decides.
  rmSync(path, { force: true });
  return false;
}

function holderAlive(path: string): boolean {
  let holder: Holder;
  try {
    holder = JSON.parse(readFileSync(path, "utf8")) as Holder;
  } catch {
    // Being written right now, or gone: look again next round.
    return true;
  }
  if (typeof holder.pid !== "number") return false;
  if (holder.startTime !== null && procAvailable())
    return isRunning({ pid: holder.pid, startTime: holder.startTime });
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
