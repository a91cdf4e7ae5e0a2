import {
  DEFAULT_AGENT,
  EVENT_TYPES,
  InvalidInput,
  type MicroUsd,
  releaseRefundsAttempt,
  type TaskFence,
  type TaskRecord,
  targetOf,
  type WorkerPause,
} from "@whilly/core";
import { plans, tasks } from "@whilly/schema";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { NO_CLAIM } from "../lease.js";
import { assertCost, capSpend } from "../plans/add-spend.js";
import { signalReady } from "../ready/signal-ready.js";
import { toNumeric, toTaskRecord } from "../rows.js";
import { storableJson } from "../text.js";
import { attemptKey, heldAttempt, settleOnPlan } from "./attempt-cost.js";
import { fencedUpdate } from "./fence.js";

/**
 * The worker gives a task back (call inside a transaction): `CLAIMED`/`IN_PROGRESS` → `PENDING`, claim
 * cleared, ready to claim again, its budget reservation settled. The cost of an interrupted attempt, if
 * given, counts like a finished one's, once per idempotency key (see `attemptKey`), saturating like it
 * (see `capSpend`). A reason that refunds (`releaseRefundsAttempt`, e.g. `agent_unavailable`) also
 * gives back the attempt a start counted, in the same statement. A `rate_limited` release of a task
 * whose plan has `fallback_agents` moves it to the next of them ({@link nextFallback}; `fence.agent` is
 * the limited agent, by default the task's own), said in the event's detail as
 * `{agent, fallback_agent}`. Writes `RELEASE` `{version, reason, worker_id}` and signals the plan's waiting claimers; with `pause` (a rate-limited
 * worker), also `worker.paused` `{worker_id, reason, until, message}` (docs/retries.md). Locks the task
 * row, then the plan row (docs/claim.md).
 * @throws {VersionConflict} @throws {NotOwner} @throws {InvalidInput} for a pause without a valid time.
 */
export async function release(
  tx: Db,
  fence: TaskFence & {
    reason: string;
    costMicroUsd?: MicroUsd | undefined;
    idempotencyKey?: string | undefined;
    pause?: WorkerPause | undefined;
    agent?: string | undefined;
  },
): Promise<TaskRecord> {
  const cost = fence.costMicroUsd ?? 0;
  assertCost(cost);
  if (fence.pause !== undefined) assertPause(fence.pause);
  const key = attemptKey(fence);
  const [held] = await tx
    .select({
      reservedUsd: tasks.reservedUsd,
      agent: sql<string>`coalesce(${tasks.fallbackAgent}, ${tasks.agent}, ${plans.agent}, ${DEFAULT_AGENT}::text)`,
      fallbackAgent: tasks.fallbackAgent,
      fallbackAgents: plans.fallbackAgents,
    })
    .from(tasks)
    .innerJoin(plans, eq(plans.id, tasks.planId))
    .where(and(eq(tasks.planId, fence.planId), eq(tasks.id, fence.taskId)));
  const limited = fence.agent ?? held?.agent;
  const fallback =
    fence.reason === RATE_LIMITED && held !== undefined && limited !== undefined
      ? nextFallback(held.fallbackAgents, held.fallbackAgent, limited)
      : undefined;
  const row = await fencedUpdate(tx, fence, "RELEASE", {
    status: targetOf("RELEASE"),
    ...NO_CLAIM,
    spentUsd: capSpend(sql`${tasks.spentUsd} + ${toNumeric(cost)}::numeric`),
    progress: null,
    ...(releaseRefundsAttempt(fence.reason) ? { attempts: refundedAttempts } : {}),
    ...(fallback === undefined ? {} : { fallbackAgent: fallback }),
  });
  await insertEvents(tx, [
    {
      planId: row.planId,
      taskId: row.id,
      eventType: EVENT_TYPES.release,
      payload: { version: row.version, reason: fence.reason, worker_id: fence.workerId },
      ...(fallback === undefined ? {} : { detail: { agent: limited ?? null, fallback_agent: fallback } }),
    },
    ...(fence.pause === undefined
      ? []
      : [
          {
            planId: row.planId,
            taskId: row.id,
            eventType: EVENT_TYPES.workerPaused,
            payload: {
              worker_id: fence.workerId,
              reason: fence.reason,
              until: fence.pause.until.toISOString(),
              message: storableJson(fence.pause.message ?? ""),
            },
          },
        ]),
  ]);
  await settleOnPlan(tx, {
    planId: row.planId,
    taskId: row.id,
    key,
    costMicroUsd: cost,
    settle: held?.reservedUsd ?? null,
  });
  await signalReady(tx, [row.planId]);
  return toTaskRecord(row);
}

/** The release reason of a usage or rate limit: the one that moves a task to a fallback agent. */
const RATE_LIMITED = "rate_limited";

/**
 * The plan's next fallback agent for a task whose agent `limited` hit a usage limit: the first of
 * `list` after the task's current fallback (from the start when it has none) that is not `limited`,
 * so a task walks the list once and never goes back to an agent it left. `undefined` when none is left
 * (the task stays where it is and waits for the limit to pass).
 */
export function nextFallback(
  list: readonly string[],
  current: string | null,
  limited: string,
): string | undefined {
  const from = current === null ? 0 : list.indexOf(current) + 1;
  return list.slice(from).find((agent) => agent !== limited);
}

/** The attempt count less the attempt a start counted: only `IN_PROGRESS` has one; never below 0. */
const refundedAttempts = sql`case when ${tasks.status} = 'IN_PROGRESS' and ${tasks.attempts} > 0 then ${tasks.attempts} - 1 else ${tasks.attempts} end`;

/**
 * The cost of a release the fence refused (a lost lease: 409), recorded once under its attempt's key
 * when the fence names an attempt its worker really held, as a refused complete or fail records it.
 * Call after the refused release rolled back, in a statement of its own. @returns nothing.
 */
export async function recordRefusedReleaseCost(
  db: Db,
  fence: TaskFence & { costMicroUsd?: MicroUsd | undefined; idempotencyKey?: string | undefined },
): Promise<void> {
  const cost = fence.costMicroUsd ?? 0;
  if (cost <= 0) return;
  await settleOnPlan(db, {
    planId: fence.planId,
    taskId: fence.taskId,
    key: attemptKey(fence),
    costMicroUsd: cost,
    settle: null,
    when: heldAttempt(fence),
  });
}

function assertPause(pause: WorkerPause): void {
  if (!(pause.until instanceof Date) || Number.isNaN(pause.until.getTime())) {
    throw new InvalidInput("pause.until", "a pause needs a valid time to pause until");
  }
}
