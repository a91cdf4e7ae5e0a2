import {
  DEFAULT_AGENT,
  DEFAULT_CAPABILITIES,
  InvalidInput,
  missingPieces,
  type WaitingTask,
  type WorkerCapabilities,
} from "@whilly/core";
import { plans, tasks, workers } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { before } from "../lease.js";
import { rawRows } from "../raw-rows.js";
import { assertPlanExists } from "./read-tasks.js";
import { routingOf, textArray } from "./routing.js";

/** Options of {@link listWaiting}: the workers to count, given and online. */
export type WaitingOptions = {
  readonly capabilities?: readonly WorkerCapabilities[] | undefined;
  /** Counts every worker online whose last heartbeat is at most this old (ms, database clock). */
  readonly onlineWithinMs?: number | undefined;
};

/**
 * The plan's ready `PENDING` tasks (no unfinished dependency) that none of the workers can run, with
 * what each waits for (`missingPieces`). A worker can run a task when the task's agent, as the claim
 * picks it for that worker, is among its agents and its tags cover the task's `required_tags`: the
 * same rule as the claim statement's. A worker row that never claimed counts as an older worker. With
 * no worker at all, nothing is reported: every task waits for a worker then, not for a capability.
 * @throws {PlanNotFound} @throws {InvalidInput} for a bad `onlineWithinMs` or name.
 */
export async function listWaiting(
  db: Db,
  planId: string,
  options: WaitingOptions = {},
): Promise<WaitingTask[]> {
  await assertPlanExists(db, planId);
  const sets = [
    ...(options.capabilities ?? []).map((set) => ({
      ...routingOf({ capabilities: set }).capabilities,
      ...choiceOf(set),
    })),
    ...(options.onlineWithinMs === undefined ? [] : await onlineCapabilities(db, options.onlineWithinMs)),
  ];
  // With no worker at all nothing runs anything: that is no capability's absence.
  if (sets.length === 0) return [];
  const setRows = sql`VALUES ${sql.join(
    sets.map(
      (set) =>
        sql`(${textArray(set.agents)}, ${textArray(set.tags)}, ${set.agent ?? null}::text, ${set.forceAgent ?? null}::text)`,
    ),
    sql`, `,
  )}`;
  const planAgent = sql`(SELECT agent FROM ${plans} WHERE id = ${planId})`;
  const result = await db.execute(sql`
    WITH sets (agents, tags, agent, force_agent) AS (${setRows})
    SELECT t.id, COALESCE(t.fallback_agent, t.agent, ${planAgent}) AS agent, t.required_tags
    FROM ${tasks} t
    WHERE t.plan_id = ${planId} AND t.status = 'PENDING' AND t.unfinished_deps = 0
      AND NOT EXISTS (SELECT 1 FROM sets s WHERE ${canRun(sql`t`, sql`s`, planAgent)})
    ORDER BY t.id
  `);
  return rawRows(result).map((row) => {
    const requirement = {
      agent: typeof row.agent === "string" ? row.agent : undefined,
      tags: tasks.requiredTags.mapFromDriverValue(row.required_tags) as string[],
    };
    return { taskId: String(row.id), waitingFor: missingPieces(requirement, sets) };
  });
}

/** SQL true when the worker `s` (a row of agents, tags, agent, force_agent) can run task `t`. */
function canRun(t: SQL, s: SQL, planAgent: SQL): SQL {
  const agent = sql`COALESCE(${s}.force_agent, ${t}.fallback_agent, ${t}.agent, ${planAgent}, ${s}.agent, ${DEFAULT_AGENT}::text)`;
  return sql`${agent} = ANY(${s}.agents) AND ${t}.required_tags <@ ${s}.tags`;
}

/** The capabilities of every worker online with a heartbeat at most `withinMs` old. */
async function onlineCapabilities(db: Db, withinMs: number): Promise<WorkerCapabilities[]> {
  if (!Number.isSafeInteger(withinMs) || withinMs < 0) {
    throw new InvalidInput("onlineWithinMs", "a whole number of milliseconds, 0 or more");
  }
  const result = await db.execute(sql`
    SELECT agents, tags, agent, force_agent FROM ${workers}
    WHERE status = 'online' AND last_heartbeat >= ${before(withinMs)}
  `);
  return rawRows(result).map((row) => {
    if (row.agents === null || row.agents === undefined) return DEFAULT_CAPABILITIES;
    return {
      agents: workers.agents.mapFromDriverValue(row.agents) as string[],
      tags: row.tags === null ? [] : (workers.tags.mapFromDriverValue(row.tags) as string[]),
      ...(typeof row.agent === "string" ? { agent: row.agent } : {}),
      ...(typeof row.force_agent === "string" ? { forceAgent: row.force_agent } : {}),
    };
  });
}

/** A set's own `--agent` and `--force-agent`, checked like a claim's. */
function choiceOf(set: WorkerCapabilities): Pick<WorkerCapabilities, "agent" | "forceAgent"> {
  const { choice } = routingOf({ choice: { agent: set.agent, forceAgent: set.forceAgent } });
  return {
    ...(choice.agent === undefined ? {} : { agent: choice.agent }),
    ...(choice.forceAgent === undefined ? {} : { forceAgent: choice.forceAgent }),
  };
}
