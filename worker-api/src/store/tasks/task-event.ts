import {
  EVENT_TYPES,
  Forbidden,
  InvalidInput,
  type JsonObject,
  type MicroUsd,
  TaskNotFound,
} from "@whilly/core";
import { attemptCosts, events, tasks } from "@whilly/schema";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { assertCost, capSpend } from "../plans/add-spend.js";
import { toNumeric } from "../rows.js";
import { MAX_IDEMPOTENCY_KEY, settlePlanCte } from "./attempt-cost.js";

/** What a worker writes about a task it ran: an event (none: the spend alone) and what it cost. */
export type TaskEventInput = {
  readonly planId: string;
  readonly taskId: string;
  readonly workerId: string;
  /** The event's type; `undefined` records the spend alone. The route checks which types a worker may write. */
  readonly eventType?: string | undefined;
  readonly payload: JsonObject;
  /** What finding the event cost, micro-USD; counted to the task and the plan like an attempt's. */
  readonly costMicroUsd: MicroUsd;
  /** The event and its cost count once per key and plan, however often they are sent. */
  readonly idempotencyKey: string;
};

/**
 * The prefix of an event's cost row in `attempt_costs`: such rows count to spend, but the claim's
 * reservation (the largest recent attempt cost) leaves them out, being no attempt.
 */
export const EVENT_COST_KEY_PREFIX = "event:";

/**
 * Records an event a worker reports about a task it ran (call inside a transaction): the event, with
 * `worker_id` added to its payload, and its cost, added to the task's and the plan's spend as an
 * attempt's is (saturating, `plan.budget_exceeded` when it crosses the budget). Once per key: a
 * repeated key writes nothing. Locks the task row, then the plan row (docs/claim.md).
 * @returns `recorded` false when the key was used already.
 * @throws {TaskNotFound} when the plan has no such task.
 * @throws {Forbidden} when `workerId` never claimed the task (no `CLAIM` event names it).
 * @throws {InvalidInput} for a bad cost or key.
 */
export async function recordTaskEvent(tx: Db, input: TaskEventInput): Promise<{ recorded: boolean }> {
  assertCost(input.costMicroUsd);
  const key = input.idempotencyKey;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    throw new InvalidInput(
      "idempotency_key",
      `an idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters; got ${key.length}`,
    );
  }
  // The task row first (locked: its spend may change), then the claim that makes the worker its.
  const [task] = await tx
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.planId, input.planId), eq(tasks.id, input.taskId)))
    .for("no key update");
  if (task === undefined) throw new TaskNotFound(input.taskId, input.planId);
  if (!(await claimedBy(tx, input))) {
    throw new Forbidden(`worker '${input.workerId}' never ran task '${input.taskId}'`, {
      reason: "not_task_worker",
      hint: "a worker reports events only about tasks it claimed",
    });
  }
  // The key's row is the record that this report counted, whatever its cost: the insert is the gate.
  const gate = await tx
    .insert(attemptCosts)
    .values({
      planId: input.planId,
      taskId: input.taskId,
      idempotencyKey: `${EVENT_COST_KEY_PREFIX}${key}`,
      costUsd: toNumeric(input.costMicroUsd),
    })
    .onConflictDoNothing()
    .returning({ id: attemptCosts.id });
  if (gate.length === 0) return { recorded: false };
  if (input.eventType !== undefined) {
    await insertEvents(tx, [
      {
        planId: input.planId,
        taskId: input.taskId,
        eventType: input.eventType,
        payload: { ...input.payload, worker_id: input.workerId },
      },
    ]);
  }
  if (input.costMicroUsd > 0) {
    const cost = toNumeric(input.costMicroUsd);
    await tx
      .update(tasks)
      .set({ spentUsd: capSpend(sql`${tasks.spentUsd} + ${cost}::numeric`) })
      .where(and(eq(tasks.planId, input.planId), eq(tasks.id, input.taskId)));
    await addToPlan(tx, input, cost);
  }
  return { recorded: true };
}

async function claimedBy(tx: Db, input: TaskEventInput): Promise<boolean> {
  const [row] = await tx
    .select({ id: events.id })
    .from(events)
    .where(
      and(
        eq(events.planId, input.planId),
        eq(events.taskId, input.taskId),
        eq(events.eventType, EVENT_TYPES.claim),
        sql`${events.payload}->>'worker_id' = ${input.workerId}`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Adds `cost` (NUMERIC text) to the plan's spend, writing `plan.budget_exceeded` when it crosses the budget. */
async function addToPlan(tx: Db, input: TaskEventInput, cost: string): Promise<void> {
  await tx.execute(sql`
    WITH ${settlePlanCte({
      planId: input.planId,
      added: sql`${cost}::numeric`,
      settle: sql`0::numeric`,
      attempts: sql`0`,
    })}
    INSERT INTO ${events} (plan_id, event_type, payload)
    SELECT ${input.planId}, ${EVENT_TYPES.planBudgetExceeded}, jsonb_build_object(
      'plan_id', ${input.planId}::text, 'budget_usd', settled.budget_usd::text,
      'spent_usd', settled.spent_usd::text, 'crossing_task_id', ${input.taskId}::text,
      'reason', 'budget_threshold', 'threshold_pct', 100)
    FROM settled WHERE settled.last_spend_crossed
  `);
}
