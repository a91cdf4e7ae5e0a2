import { allowedFrom, type TaskStatus } from "@whilly/core";
import { tasks } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";

/**
 * The statuses that hold a lease: exactly those RELEASE may leave, since releasing is giving the
 * lease back. Heartbeats renew these and the sweeps return them to `PENDING`.
 */
export const LEASED: readonly TaskStatus[] = allowedFrom("RELEASE");

/** The lease end `leaseMs` milliseconds after now, by the database clock. */
export function leaseUntil(leaseMs: number): SQL<Date> {
  return sql<Date>`now() + make_interval(secs => ${leaseMs}::double precision / 1000)`;
}

/** The instant `ms` milliseconds before now, by the database clock. */
export function before(ms: number): SQL<Date> {
  return sql<Date>`now() - make_interval(secs => ${ms}::double precision / 1000)`;
}

/** The column values of a task nobody holds: no lease, and no budget reservation. */
export const NO_CLAIM = {
  claimedBy: null,
  claimedAt: null,
  leaseExpiresAt: null,
  reservedUsd: null,
} as const;

/** `version + 1` and `updated_at = now()`: what every transition sets besides its own columns. */
export function bumpVersion() {
  return { version: sql`${tasks.version} + 1`, updatedAt: sql`now()` };
}
