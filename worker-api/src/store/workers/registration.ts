import { InvalidInput, type TaskRecord, type WorkerRecord } from "@whilly/core";
import { workers } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { releaseWorkerTasks } from "../leases/release-worker-tasks.js";
import { toWorkerRecord } from "../rows.js";
import { assertStorable } from "../text.js";

/** Lowercase hex SHA-256: the only form of a bearer the store keeps. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** The `RELEASE` reason of tasks taken back from a revoked worker. */
export const REVOKED_REASON = "worker_revoked";

/** What {@link revokeWorker} did. */
export type RevokeResult = {
  /** False when no worker has this id (nothing changed). */
  readonly found: boolean;
  /** False when the worker's token was already revoked (or it never had one). */
  readonly hadToken: boolean;
  /** Tasks the worker held, now back in `PENDING` with `RELEASE` `worker_revoked`. */
  readonly released: readonly TaskRecord[];
};

/**
 * Stores a new worker with the hash of its bearer. An id already taken is left untouched, so the
 * caller can draw another id and retry.
 * @param input.tokenHash lowercase hex SHA-256 of the bearer (never the bearer itself).
 * @returns the new worker, or `undefined` when `workerId` is taken.
 * @throws {InvalidInput} for a malformed hash, or when another worker holds the same hash.
 */
export async function registerWorker(
  db: Db,
  input: { workerId: string; hostname: string; tokenHash: string },
): Promise<WorkerRecord | undefined> {
  assertStorable(input.workerId, "worker id");
  assertStorable(input.hostname, "hostname");
  assertTokenHash(input.tokenHash);
  const [row] = await db
    .insert(workers)
    .values({ workerId: input.workerId, hostname: input.hostname, tokenHash: input.tokenHash })
    .onConflictDoNothing({ target: workers.workerId })
    .returning();
  return row && toWorkerRecord(row);
}

/**
 * The worker whose bearer hashes to `tokenHash` (a partial unique index makes this one index probe).
 * @returns `undefined` when no worker holds it, e.g. after {@link revokeWorker}.
 */
export async function findWorkerByTokenHash(db: Db, tokenHash: string): Promise<WorkerRecord | undefined> {
  if (!TOKEN_HASH.test(tokenHash)) return undefined;
  const [row] = await db.select().from(workers).where(eq(workers.tokenHash, tokenHash));
  return row && toWorkerRecord(row);
}

/**
 * Revokes a worker's bearer (call inside a transaction): the hash is cleared, so its next request is
 * refused, and the worker is marked `offline`. A revoked worker can never report a result, so the tasks
 * it holds go back to `PENDING` at once rather than when their leases run out.
 */
export async function revokeWorker(tx: Db, workerId: string): Promise<RevokeResult> {
  const [before] = await tx
    .select({ tokenHash: workers.tokenHash })
    .from(workers)
    .where(eq(workers.workerId, workerId))
    .for("update");
  if (!before) return { found: false, hadToken: false, released: [] };
  await tx.update(workers).set({ tokenHash: null, status: "offline" }).where(eq(workers.workerId, workerId));
  const released = await releaseWorkerTasks(tx, workerId, REVOKED_REASON);
  return { found: true, hadToken: before.tokenHash !== null, released };
}

function assertTokenHash(tokenHash: string): void {
  if (!TOKEN_HASH.test(tokenHash)) {
    throw new InvalidInput("tokenHash", "a token hash must be 64 lowercase hex digits (SHA-256)");
  }
}
