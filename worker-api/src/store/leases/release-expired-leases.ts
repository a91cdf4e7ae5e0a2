import type { TaskRecord } from "@whilly/core";
import { tasks } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { releaseWhere } from "./release-where.js";

/**
 * The lease sweep (call inside a transaction): every task whose lease ended before now (database
 * clock) goes back to `PENDING` with `RELEASE` `{reason: "visibility_timeout", version, worker_id}`.
 * @returns the released tasks.
 */
export function releaseExpiredLeases(tx: Db): Promise<TaskRecord[]> {
  return releaseWhere(tx, sql`${tasks.leaseExpiresAt} < now()`, "visibility_timeout");
}
