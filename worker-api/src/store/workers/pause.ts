import { ADMIN_PAUSE_REASON, EVENT_TYPES, isTerminal, TASK_STATUSES } from "@whilly/core";
import { tasks, workerPauses } from "@whilly/schema";
import { asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { signalReady } from "../ready/signal-ready.js";

/** The `worker_pauses` scope that pauses every worker, also those that register later. */
export const EVERY_WORKER = "*";

/** An operator's pause of every worker: since when (database clock) and why (`admin`). */
export type WorkersPause = { readonly pausedAt: Date; readonly reason: string };

/** What {@link resumeWorkers} did: whether a pause was lifted, and the plans whose claimers it woke. */
export type ResumeResult = { readonly resumed: boolean; readonly planIds: string[] };

/**
 * Pauses every worker (call inside a transaction): from the commit on, their claims find nothing
 * (see the claim statement's pause check) while tasks already claimed finish normally. Idempotent:
 * pausing a paused control plane changes nothing and writes nothing. A new pause writes
 * `worker.paused` `{worker_id: null, reason: "admin", until: null, message: ""}` once in each plan with
 * unfinished tasks, in plan id order.
 * @returns the pause in force (the earlier one when already paused).
 */
export async function pauseWorkers(tx: Db): Promise<WorkersPause> {
  const [created] = await tx
    .insert(workerPauses)
    .values({ scope: EVERY_WORKER, reason: ADMIN_PAUSE_REASON })
    .onConflictDoNothing()
    .returning();
  if (created) {
    const planIds = await unfinishedPlans(tx);
    await insertEvents(
      tx,
      planIds.map((planId) => ({
        planId,
        eventType: EVENT_TYPES.workerPaused,
        payload: { worker_id: null, reason: ADMIN_PAUSE_REASON, until: null, message: "" },
      })),
    );
    return { pausedAt: created.pausedAt, reason: created.reason };
  }
  const pause = await readWorkersPause(tx);
  if (!pause) throw new Error("the pause row vanished while inserting it");
  return pause;
}

/**
 * Lifts the pause of every worker (call inside a transaction). When one was in force, writes
 * `worker.resumed` `{worker_id: null, reason: "admin"}` once in each plan with unfinished tasks and
 * signals those plans' waiting claimers, so parked claims look again at once instead of at their
 * next recheck. Idempotent: resuming workers that are not paused writes nothing.
 */
export async function resumeWorkers(tx: Db): Promise<ResumeResult> {
  const removed = await tx
    .delete(workerPauses)
    .where(eq(workerPauses.scope, EVERY_WORKER))
    .returning({ scope: workerPauses.scope });
  if (removed.length === 0) return { resumed: false, planIds: [] };
  const planIds = await unfinishedPlans(tx);
  await insertEvents(
    tx,
    planIds.map((planId) => ({
      planId,
      eventType: EVENT_TYPES.workerResumed,
      payload: { worker_id: null, reason: ADMIN_PAUSE_REASON },
    })),
  );
  await signalReady(tx, planIds);
  return { resumed: true, planIds };
}

/** @returns the pause of every worker in force, or `undefined` when workers run. */
export async function readWorkersPause(db: Db): Promise<WorkersPause | undefined> {
  const [row] = await db.select().from(workerPauses).where(eq(workerPauses.scope, EVERY_WORKER));
  return row ? { pausedAt: row.pausedAt, reason: row.reason } : undefined;
}

const UNFINISHED = TASK_STATUSES.filter((status) => !isTerminal(status));

/** Plans with a task not yet finished (pending, claimed or running), by id: those a pause holds back. */
async function unfinishedPlans(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ planId: tasks.planId })
    .from(tasks)
    .where(inArray(tasks.status, UNFINISHED))
    .orderBy(asc(tasks.planId));
  return rows.map((row) => row.planId);
}
