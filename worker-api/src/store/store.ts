import type {
  ClaimedTask,
  ClaimRouting,
  EventRecord,
  FinishResult,
  PlanRecord,
  TaskFence,
  TaskRecord,
  TaskRef,
  TaskStore,
  WorkerRecord,
} from "@whilly/core";
import type { NewEvent } from "./events/insert-events.js";
import type { EventCursor, SettledEvent } from "./events/settled-events.js";
import type { MetricsQuery, StoreMetrics } from "./metrics/read-metrics.js";
import type { ListenForReady } from "./ready/listener.js";
import type { TaskEventInput } from "./tasks/task-event.js";
import type { PauseResult, ResumeResult, WorkersPause } from "./workers/pause.js";
import type { PresentedBearer } from "./workers/presented-bearer.js";
import type { ReadTokenRecord } from "./workers/read-tokens.js";
import type { RevokeResult } from "./workers/registration.js";

// The port's vocabulary, so callers outside the store name it through the port alone.
export type { NewEvent } from "./events/insert-events.js";
export { type EventCursor, LOG_START, type SettledEvent } from "./events/settled-events.js";
export type {
  AttemptCounts,
  MetricsQuery,
  PlanMetrics,
  StoreMetrics,
  TaskCount,
} from "./metrics/read-metrics.js";
export type { TaskEventInput } from "./tasks/task-event.js";
export type { PauseResult, ResumeResult, WorkersPause } from "./workers/pause.js";
export { BearerNotStored, type PresentedBearer } from "./workers/presented-bearer.js";

/** Which engine a store runs on. PGlite has one connection, so its claims never run concurrently. */
export type StoreDriver = "postgres" | "pglite";

/**
 * The `TaskStore` port plus what the control plane's background parts need: batched event writes for
 * the event buffer, and the offline-worker sweep.
 */
export interface Store extends TaskStore {
  readonly driver: StoreDriver;

  /**
   * Writes events in order in one transaction; events of plans that no longer exist are dropped and a
   * repeated `idempotencyKey` is skipped.
   * @returns how many rows were written.
   */
  appendEvents(events: readonly NewEvent[]): Promise<number>;

  /**
   * One task's latest events, oldest first: the `limit` newest (1 to 10,000) of `eventTypes` when
   * given, else of every type (the task page's history and its attempts). Unknown plan or task: none.
   */
  listTaskEvents(
    planId: string,
    taskId: string,
    options: { limit: number; eventTypes?: readonly string[] | undefined },
  ): Promise<EventRecord[]>;

  /**
   * Marks workers whose last heartbeat is older than `heartbeatTimeoutMs` offline and returns every task
   * an offline worker holds to `PENDING` (`RELEASE`, reason `worker_offline`).
   */
  releaseOfflineWorkers(heartbeatTimeoutMs: number): Promise<{ workers: string[]; released: TaskRecord[] }>;

  /**
   * Stores a new worker with the SHA-256 hex of its bearer.
   * @returns the worker, or `undefined` when `workerId` is taken (draw another id and retry).
   * @throws {InvalidInput} for a malformed hash or one another worker holds.
   */
  registerWorker(input: {
    workerId: string;
    hostname: string;
    tokenHash: string;
  }): Promise<WorkerRecord | undefined>;

  /** @returns the worker holding the bearer with this SHA-256 hex, or `undefined` (unknown or revoked). */
  findWorkerByTokenHash(tokenHash: string): Promise<WorkerRecord | undefined>;

  /**
   * Revokes a worker's bearer at once (its next request gets 401), marks it `offline` and returns its
   * tasks to `PENDING` (`RELEASE`, reason `worker_revoked`).
   */
  revokeWorker(workerId: string): Promise<RevokeResult>;

  /**
   * {@link TaskStore.claim}, also returning the task's plan as the claim's transaction read it, so a
   * claim's answer (task plus plan context) costs one transaction. With `bearer`, the same statement
   * first checks that it is still stored for `workerId`, so the request needs no separate auth lookup.
   * @throws {BearerNotStored} when `bearer` is given and not stored for the worker; nothing changed.
   */
  claimWithPlan(
    input: {
      planId: string;
      workerId: string;
      leaseMs: number;
      start?: boolean | undefined;
      bearer?: PresentedBearer | undefined;
    } & ClaimRouting,
  ): Promise<{ task: ClaimedTask; plan: PlanRecord } | undefined>;

  /**
   * Whether the plan has a ready task a worker with `routing` cannot run (another worker may): a claim
   * that found nothing after a wake-up then hands the wake-up on.
   */
  hasReadyForOthers(planId: string, routing: ClaimRouting): Promise<boolean>;

  /**
   * {@link TaskStore.complete}; with `bearer`, checked in the same statement as for
   * {@link Store.claimWithPlan}. @throws {BearerNotStored}
   */
  complete(
    fence: Parameters<TaskStore["complete"]>[0] & { bearer?: PresentedBearer | undefined },
  ): Promise<FinishResult>;

  /**
   * {@link TaskStore.fail}; with `bearer`, checked in the same statement as for
   * {@link Store.claimWithPlan}. @throws {BearerNotStored}
   */
  fail(
    fence: Parameters<TaskStore["fail"]>[0] & { bearer?: PresentedBearer | undefined },
  ): Promise<FinishResult>;

  /**
   * Stores a read-only token of the read API by the SHA-256 hex of its value (the value is never kept).
   * @returns its row, or `undefined` when `id` is taken (draw another and retry).
   * @throws {InvalidInput} for a malformed hash or label.
   */
  createReadToken(input: {
    id: string;
    tokenHash: string;
    label?: string | undefined;
  }): Promise<ReadTokenRecord | undefined>;

  /** @returns the live read token with this SHA-256 hex, or `undefined` (unknown or revoked). */
  findReadTokenByHash(tokenHash: string): Promise<ReadTokenRecord | undefined>;

  /**
   * @returns the live read token with this id, or `undefined` (unknown or revoked): a browser session
   * opened with a read token checks it on every request.
   */
  findReadTokenById(id: string): Promise<ReadTokenRecord | undefined>;

  /** Every read token, revoked ones included, oldest first. */
  listReadTokens(): Promise<ReadTokenRecord[]>;

  /** Revokes a read token at once. @returns `found: false` for an unknown id, `wasLive: false` if already revoked. */
  revokeReadToken(id: string): Promise<{ found: boolean; wasLive: boolean }>;

  /**
   * Records a worker's liveness only (status `online`, heartbeat now): no lease is renewed and no task
   * judged, unlike {@link TaskStore.heartbeat}, so it can check that a worker exists.
   * @returns false when the worker is not registered.
   */
  touchWorker(workerId: string): Promise<boolean>;

  /**
   * Hands back a task claimed for a client found gone before it was told (`PENDING`, `RELEASE` with
   * `reason`, the attempt given back if the claim started it), in one statement.
   * @returns the task released, or `undefined` when the fence no longer matches (nothing changed).
   */
  releaseUnseenClaim(fence: TaskFence & { reason: string }): Promise<TaskRef | undefined>;

  /**
   * The numbers `GET /metrics` serves, read from the database now (two aggregate statements), so every
   * replica and every Workers isolate answers the same and a deleted plan's numbers are gone with it.
   * @throws {InvalidInput} for a bad `query` (see `readMetrics`).
   */
  readMetrics(query: MetricsQuery): Promise<StoreMetrics>;

  /**
   * Records an event a worker reports about a task it ran (the failure analysis, docs/triz.md) and its
   * cost, counted to the task's and the plan's spend like an attempt's; once per idempotency key.
   * @returns `recorded` false when the key was used already (nothing written).
   * @throws {TaskNotFound} @throws {Forbidden} when the worker never claimed the task.
   * @throws {InvalidInput} for a bad cost or key.
   */
  recordTaskEvent(input: TaskEventInput): Promise<{ recorded: boolean }>;

  /**
   * An operator's retry of one `FAILED` task: back to `PENDING` with attempts 0 (core's `REQUEUE`
   * edge), last failure and spend kept, `RESET` `{reason: "retry_failed", mode: "task", version}`,
   * the plan's waiting claimers signalled. One transaction.
   * @throws {VersionConflict} (`actualStatus` set) when the task is not `FAILED`.
   * @throws {TaskNotFound} @throws {PlanNotFound}
   */
  resetTask(planId: string, taskId: string): Promise<TaskRecord>;

  /**
   * An operator takes back one `CLAIMED`/`IN_PROGRESS` task: `PENDING`, `RELEASE` with reason
   * `admin_release` and the holder's `worker_id`, its budget reservation settled; the holder's fence no
   * longer matches, so its late finish gets 409. One transaction.
   * @throws {VersionConflict} (`actualStatus` set) when the task is not held.
   * @throws {TaskNotFound} @throws {PlanNotFound}
   */
  releaseTask(planId: string, taskId: string): Promise<TaskRecord>;

  /**
   * Pauses every worker, also those that register later: their claims find nothing until
   * {@link Store.resumeWorkers}; tasks in flight finish normally. Writes `worker.paused` (reason `admin`)
   * in each plan with unfinished tasks when the pause is new; idempotent.
   * @returns the pause in force and the plans it wrote `worker.paused` in.
   */
  pauseWorkers(): Promise<PauseResult>;

  /**
   * Lifts {@link Store.pauseWorkers}: writes `worker.resumed` in each plan with unfinished tasks and
   * signals their waiting claimers; idempotent (nothing paused: nothing written).
   */
  resumeWorkers(): Promise<ResumeResult>;

  /** @returns the pause of every worker in force, or `undefined` when workers run. */
  readWorkersPause(): Promise<WorkersPause | undefined>;

  /** Proves the database answers with the cheapest query. @throws when it does not. */
  ping(): Promise<void>;

  /**
   * Subscribes to the store's ready signals: every write that makes a task ready (import, a completion
   * readying dependents, a release, a reset, a sweep) announces its plan on commit. Postgres delivers
   * them to every process listening on the database (LISTEN/NOTIFY on a dedicated connection), PGlite
   * within its one process. Absent on drivers that cannot hold a listening connection.
   */
  readonly listenForReady?: ListenForReady;

  /**
   * Audit events after `after` in the no-skip delivery order `(xid, id)`, only those of transactions
   * older than every open one (see `readSettledEvents`); of one plan when `options.planId` is given.
   */
  readSettledEvents(
    after: EventCursor,
    options: { planId?: string | undefined; limit: number },
  ): Promise<SettledEvent[]>;

  /** The cursor just after event `afterId` (an SSE `Last-Event-ID`), see `cursorAfterEvent`. */
  cursorAfterEvent(afterId: number, planId?: string): Promise<EventCursor>;

  /** The cursor after the last settled event (of `planId` when given): where following new events starts. */
  settledHead(planId?: string): Promise<EventCursor>;

  /**
   * Subscribes to committed audit events: the handler gets the plan id of each transaction that wrote
   * events (one signal per transaction and plan; `undefined` for "any plan", and once on every
   * (re)connect). Same delivery as {@link Store.listenForReady}; absent where the driver cannot listen.
   */
  readonly listenForEvents?: ListenForReady;
}
