import type { TaskRef, WorkerRecord } from "@whilly/core";
import { tasks, workers } from "@whilly/schema";
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { LEASED, leaseUntil } from "../lease.js";
import { toWorkerRecord } from "../rows.js";
import { assertLeaseMs } from "../tasks/claim.js";
import { assertStorable } from "../text.js";

/**
 * Registers a worker, or refreshes a known one: hostname updated, status `online`, heartbeat now.
 * @param input.tokenHash SHA-256 hex of the worker's bearer; `undefined` keeps the stored hash.
 * @throws {InvalidInput} when another worker holds the same token hash.
 */
export async function upsertWorker(
  db: Db,
  input: { workerId: string; hostname: string; tokenHash?: string | undefined },
): Promise<WorkerRecord> {
  assertStorable(input.workerId, "worker id");
  assertStorable(input.hostname, "hostname");
  const refresh = {
    hostname: input.hostname,
    status: "online",
    lastHeartbeat: sql`now()`,
    ...(input.tokenHash === undefined ? {} : { tokenHash: input.tokenHash }),
  };
  const [row] = await db
    .insert(workers)
    .values({ workerId: input.workerId, hostname: input.hostname, tokenHash: input.tokenHash ?? null })
    .onConflictDoUpdate({ target: workers.workerId, set: refresh })
    .returning();
  if (!row) throw new Error(`worker '${input.workerId}' was not stored`);
  return toWorkerRecord(row);
}

/** Every worker, by id. */
export async function listWorkers(db: Db): Promise<WorkerRecord[]> {
  const rows = await db.select().from(workers).orderBy(asc(workers.workerId));
  return rows.map(toWorkerRecord);
}

/**
 * Records a heartbeat (status `online`, heartbeat now) and renews to now + `leaseMs` (database clock)
 * the leases of the tasks the worker holds: all of them, or, when `running` is given, only those it
 * names. A task the worker holds but does not know it holds (its claim reply was lost) is then left to
 * expire and the sweep returns it, instead of being renewed for as long as the worker lives. Renewal
 * is not a transition: versions stay as they are, so the worker's fenced calls still match.
 * @returns `ok: false` when the worker is not registered; `renewed` lists the tasks whose lease was
 *   renewed, by plan and id: named tasks the worker does not hold (or no longer holds) are left out.
 * @throws {InvalidInput} for a bad lease.
 */
export async function heartbeat(
  tx: Db,
  workerId: string,
  leaseMs: number,
  running?: readonly TaskRef[],
): Promise<{ ok: boolean; renewed: TaskRef[] }> {
  assertLeaseMs(leaseMs);
  const [worker] = await tx
    .update(workers)
    .set({ status: "online", lastHeartbeat: sql`now()` })
    .where(eq(workers.workerId, workerId))
    .returning({ workerId: workers.workerId });
  if (!worker) return { ok: false, renewed: [] };
  if (running !== undefined && running.length === 0) return { ok: true, renewed: [] };
  const named =
    running === undefined
      ? undefined
      : or(...running.map((r) => and(eq(tasks.planId, r.planId), eq(tasks.id, r.taskId))));
  const renewed = await tx
    .update(tasks)
    .set({ leaseExpiresAt: leaseUntil(leaseMs) })
    .where(and(eq(tasks.claimedBy, workerId), inArray(tasks.status, [...LEASED]), named))
    .returning({ planId: tasks.planId, taskId: tasks.id });
  renewed.sort((a, b) => compare(a.planId, b.planId) || compare(a.taskId, b.taskId));
  return { ok: true, renewed };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
