import { sql } from "drizzle-orm";
import type { Db } from "../db.js";

/**
 * The first key of every key-file lock (Postgres' two-key advisory locks): "WHLY", so whilly's locks
 * stay apart from any other application's on the same database.
 */
export const KEY_FILE_LOCK_SPACE = 0x57484c59;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

/**
 * The second key of the lock on one key file of one plan: the 32-bit FNV-1a hash (as a signed
 * integer, Postgres' `integer`) of the UTF-8 bytes of `planId`, a NUL byte, and `file` as written.
 * Two files that hash alike share a lock, which only makes their claims wait on each other.
 */
export function keyFileLockKey(planId: string, file: string): number {
  let hash = FNV_OFFSET;
  for (const byte of encoder.encode(`${planId}\u0000${file}`)) {
    hash = Math.imul(hash ^ byte, FNV_PRIME);
  }
  return hash | 0;
}

/**
 * The distinct lock keys of `files` in ascending order: the one order every claim takes them in, so
 * two claims waiting on each other's files cannot deadlock (sorted by key, not by name, since two
 * names may share a key).
 */
export function keyFileLockKeys(planId: string, files: readonly string[]): number[] {
  const keys = new Set(files.map((file) => keyFileLockKey(planId, file)));
  return [...keys].sort((a, b) => a - b);
}

/**
 * Takes the transaction-scoped advisory lock `(KEY_FILE_LOCK_SPACE, keyFileLockKey(planId, file))` of
 * each of `files`, in {@link keyFileLockKeys} order, in one statement, waiting for each in turn; they
 * are let go when `tx`'s transaction ends. Call it first in the transaction, before any row is
 * touched (docs/claim.md, "Lock order").
 */
export async function lockKeyFiles(tx: Db, planId: string, files: readonly string[]): Promise<void> {
  const keys = keyFileLockKeys(planId, files);
  if (keys.length === 0) return;
  // A function scan over the array yields its elements in order, and each row's lock is taken as
  // the row is produced: the locks are taken in the array's (ascending) order.
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(${KEY_FILE_LOCK_SPACE}::integer, k)
      FROM unnest(${`{${keys.join(",")}}`}::integer[]) AS u(k)`,
  );
}
