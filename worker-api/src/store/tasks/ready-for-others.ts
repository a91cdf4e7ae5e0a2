import { allowedFrom, type ClaimRouting } from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { rawRows, statusList } from "../raw-rows.js";
import { routingOf, runnable } from "./routing.js";

const CLAIMABLE = statusList(allowedFrom("CLAIM"));

/**
 * Whether the plan has a ready task (claimable status, no unfinished dependency, a retry's
 * `not_before` passed) that a worker with `routing` cannot run: what a claim that found nothing after
 * a wake-up asks before handing the wake-up on to another parked claim (`claimWithinBound`). One
 * probe of the claim-order index, stopping at the first such task.
 */
export async function hasReadyForOthers(db: Db, planId: string, routing: ClaimRouting): Promise<boolean> {
  const planAgent = sql`(SELECT agent FROM ${plans} WHERE id = ${planId})`;
  const result = await db.execute(sql`
    SELECT EXISTS (
      SELECT 1 FROM ${tasks} t
      WHERE t.plan_id = ${planId} AND t.status IN (${CLAIMABLE}) AND t.unfinished_deps = 0
        AND (t.not_before IS NULL OR t.not_before <= now())
        AND NOT (${runnable(sql`t`, planAgent, routingOf(routing))})
    ) AS found
  `);
  return rawRows(result)[0]?.found === true;
}
