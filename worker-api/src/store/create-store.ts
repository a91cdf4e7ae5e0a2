import { NotOwner, VersionConflict } from "@whilly/core";
import type { Db } from "./db.js";
import { retryOnce, translateError } from "./errors.js";
import { appendEvent, appendEvents } from "./events/append-events.js";
import { listEvents, listTaskEvents } from "./events/events.js";
import { cursorAfterEvent, readSettledEvents, settledHead } from "./events/settled-events.js";
import { releaseExpiredLeases } from "./leases/release-expired-leases.js";
import { releaseOfflineWorkers, releaseWorkerTasks } from "./leases/release-worker-tasks.js";
import { readMetrics } from "./metrics/read-metrics.js";
import { ping } from "./ping.js";
import { createPlan } from "./plans/create-plan.js";
import { importPlan } from "./plans/import-plan.js";
import { findPlanByIssueRef, getPlan, listPlans } from "./plans/read-plans.js";
import { resetPlan } from "./plans/reset-plan.js";
import { setPlanBudget } from "./plans/set-budget.js";
import { setPlanMaxAttempts } from "./plans/set-max-attempts.js";
import type { ListenForReady } from "./ready/listener.js";
import type { Store, StoreDriver } from "./store.js";
import { claim, claimWithPlan } from "./tasks/claim.js";
import { finish } from "./tasks/finish.js";
import { listBlocked } from "./tasks/list-blocked.js";
import { listWaiting } from "./tasks/list-waiting.js";
import { releaseTask, resetTask } from "./tasks/operator-actions.js";
import { findClaimedPlans, getTask, listTasks } from "./tasks/read-tasks.js";
import { hasReadyForOthers } from "./tasks/ready-for-others.js";
import { recordRefusedReleaseCost, release } from "./tasks/release.js";
import { releaseUnseenClaim } from "./tasks/release-unseen.js";
import { skipTask } from "./tasks/skip-task.js";
import { start } from "./tasks/start.js";
import { recordTaskEvent } from "./tasks/task-event.js";
import { heartbeat, touchWorker } from "./workers/heartbeat.js";
import { pauseWorkers, readWorkersPause, resumeWorkers } from "./workers/pause.js";
import {
  createReadToken,
  findReadTokenByHash,
  findReadTokenById,
  listReadTokens,
  revokeReadToken,
} from "./workers/read-tokens.js";
import { findWorkerByTokenHash, registerWorker, revokeWorker } from "./workers/registration.js";
import { listWorkers, upsertWorker } from "./workers/workers.js";

/**
 * Builds the store over an open drizzle database. Each write runs in its own transaction (a thrown
 * error rolls it back, which also keeps PGlite's single connection usable), or, when it is a single
 * statement, in that statement's own implicit transaction; and every driver error is
 * translated into whilly's error tree at this boundary. An operation Postgres aborted as a deadlock
 * or serialization failure ran to no effect, so it is run once more before the error is answered.
 * @param options.close releases the connection, pool or embedded database (and its lock).
 * @param options.listenForReady subscribes to the database's ready signals, where the driver can.
 * @param options.listenForEvents subscribes to its committed audit events, where the driver can.
 */
export function createStore(
  db: Db,
  options: {
    driver: StoreDriver;
    close: () => Promise<void>;
    listenForReady?: ListenForReady;
    listenForEvents?: ListenForReady;
  },
): Store {
  const read = <A extends unknown[], R>(op: (db: Db, ...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      try {
        return await retryOnce(() => op(db, ...args));
      } catch (error) {
        throw translateError(error);
      }
    };
  };
  const write = <A extends unknown[], R>(op: (tx: Db, ...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      try {
        return await retryOnce(() => db.transaction((tx) => op(tx, ...args)));
      } catch (error) {
        throw translateError(error);
      }
    };
  };
  // An operation that is one SQL statement is atomic by itself: running it without BEGIN and COMMIT
  // saves two round trips (the hot path's claim and finish are written this way for that reason).
  const statement = read;
  let closed = false;

  return {
    driver: options.driver,
    ...(options.listenForReady ? { listenForReady: options.listenForReady } : {}),
    ...(options.listenForEvents ? { listenForEvents: options.listenForEvents } : {}),
    createPlan: write(createPlan),
    importPlan: write(importPlan),
    getPlan: read(getPlan),
    findPlanByIssueRef: read(findPlanByIssueRef),
    listPlans: read(listPlans),
    listTasks: read(listTasks),
    listBlocked: read(listBlocked),
    listWaiting: read(listWaiting),
    hasReadyForOthers: read(hasReadyForOthers),
    listEvents: read(listEvents),
    listTaskEvents: read(listTaskEvents),
    readSettledEvents: read(readSettledEvents),
    cursorAfterEvent: read(cursorAfterEvent),
    settledHead: read(settledHead),
    appendEvent: write(appendEvent),
    appendEvents: write(appendEvents),
    skipTask: write(skipTask),
    resetPlan: write(resetPlan),
    setPlanBudget: write(setPlanBudget),
    setPlanMaxAttempts: statement(setPlanMaxAttempts),
    upsertWorker: read(upsertWorker),
    heartbeat: statement(heartbeat),
    touchWorker: statement(touchWorker),
    claim: statement(claim),
    claimWithPlan: statement(claimWithPlan),
    start: write(start),
    complete: statement((db, fence) =>
      finish(db, fence, { transition: "COMPLETE", verification: fence.verification, work: fence.work }),
    ),
    fail: statement((db, fence) =>
      finish(db, fence, {
        transition: "FAIL",
        reason: fence.reason,
        failure: fence.failure,
        backoff: fence.backoff,
      }),
    ),
    release: async (fence) => {
      try {
        return await write(release)(fence);
      } catch (error) {
        // A lost lease refuses the release, but the interrupted attempt's spend still counts, once.
        if (error instanceof VersionConflict || error instanceof NotOwner) {
          await statement(recordRefusedReleaseCost)(fence);
        }
        throw error;
      }
    },
    releaseUnseenClaim: statement(releaseUnseenClaim),
    recordTaskEvent: write(recordTaskEvent),
    releaseWorkerTasks: write(releaseWorkerTasks),
    releaseExpiredLeases: write(releaseExpiredLeases),
    releaseOfflineWorkers: write(releaseOfflineWorkers),
    findClaimedPlans: read(findClaimedPlans),
    listWorkers: read(listWorkers),
    registerWorker: read(registerWorker),
    findWorkerByTokenHash: read(findWorkerByTokenHash),
    revokeWorker: write(revokeWorker),
    createReadToken: read(createReadToken),
    findReadTokenByHash: read(findReadTokenByHash),
    findReadTokenById: read(findReadTokenById),
    listReadTokens: read(listReadTokens),
    revokeReadToken: write(revokeReadToken),
    readMetrics: read(readMetrics),
    resetTask: write(resetTask),
    releaseTask: write(releaseTask),
    pauseWorkers: write(pauseWorkers),
    resumeWorkers: write(resumeWorkers),
    readWorkersPause: read(readWorkersPause),
    ping: read(ping),
    getTask: read(getTask),
    async close() {
      if (closed) return;
      closed = true;
      await options.close();
    },
  };
}
