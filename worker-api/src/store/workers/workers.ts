import type { WorkerRecord } from "@whilly/core";
import { workers } from "@whilly/schema";
import { asc, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { toWorkerRecord } from "../rows.js";
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
