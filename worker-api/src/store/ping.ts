import { sql } from "drizzle-orm";
import type { Db } from "./db.js";

/**
 * The cheapest round trip that proves the database answers (`SELECT 1`), for health checks.
 * @throws whatever the driver throws when it cannot connect or query.
 */
export async function ping(db: Db): Promise<void> {
  await db.execute(sql`SELECT 1`);
}
