import type { AgentChoice, RunChoice, WaitingTask } from "../agents/index.js";
import type { AttemptFailure, Verification } from "../attempts/index.js";
import type {
  AttemptProgress,
  DependencyWork,
  EventRecord,
  JsonObject,
  PlanRecord,
  PlanSpec,
  TaskRecord,
  TaskWork,
  WorkerCapabilities,
  WorkerRecord,
} from "../model.js";
import type { MicroUsd } from "../money.js";
import type { TaskStatus } from "../task-status.js";

/**
 * What importing a plan file did. Tasks new to the stored plan are inserted (one `task.created` event
 * each); tasks already stored are left as they are, and those whose file content differs from the stored
 * spec are listed in `changed` so the CLI can warn.
 */
export type ImportResult = {
  readonly plan: PlanRecord;
  readonly planCreated: boolean;
  readonly inserted: readonly string[];
  readonly unchanged: readonly string[];
  readonly changed: readonly string[];
  /** Imported with status `CLAIMED` or `IN_PROGRESS`: stored as `PENDING`, since no worker holds them. */
  readonly demotedToPending: readonly string[];
  /**
   * The plan-level fields of the file (`project`, `agent_instructions`, other fields) that differ from
   * the stored plan, which kept its own; empty for a new plan, or one `plan create` left blank.
   */
  readonly planChanged: readonly string[];
};

/** A plan with its tasks counted by status. */
export type PlanSummary = PlanRecord & {
  readonly taskCount: number;
  readonly counts: Readonly<Record<TaskStatus, number>>;
};

/** A `PENDING` task that can never become ready: a dependency ended `FAILED` or `SKIPPED` (or is blocked). */
export type BlockedTask = {
  readonly taskId: string;
  /** The failed or skipped tasks at the root of the blockage, sorted. */
  readonly blockedBy: readonly string[];
};

/**
 * A claimed task with its dependencies' work: each dependency whose worker reported a branch and commit,
 * in the order of the task's `dependencies`.
 */
export type ClaimedTask = TaskRecord & {
  readonly dependencyWork: readonly DependencyWork[];
  /** The agent and model this attempt runs, as `chooseAgent` resolves them for the claiming worker. */
  readonly choice: AgentChoice;
};

/**
 * What a claim says about the claiming worker (docs/agents.md#routing): what it can run (absent: an
 * older worker, `DEFAULT_CAPABILITIES`) and its own agent and model choice.
 */
export type ClaimRouting = {
  readonly capabilities?: WorkerCapabilities | undefined;
  readonly choice?: RunChoice | undefined;
};

/** A task by its identity `(planId, taskId)`. */
export type TaskRef = { readonly planId: string; readonly taskId: string };

/** Identifies a task and fences a mutation: the caller's worker and the version it last saw. */
export type TaskFence = {
  readonly planId: string;
  readonly taskId: string;
  readonly workerId: string;
  readonly version: number;
};

/**
 * A finish's fence and the attempt's cost (µUSD). `idempotencyKey` names the attempt so its cost counts
 * once however often the report is sent (docs/protocol.md); without one the store derives a key from the
 * fence, which a retry of the same report repeats.
 */
export type FinishReport = TaskFence & {
  readonly costMicroUsd: MicroUsd;
  readonly idempotencyKey?: string | undefined;
};

/** The result of a complete or fail: the task after the transition, and whether spend crossed the budget. */
export type FinishResult = {
  readonly task: TaskRecord;
  /** True for exactly one finish per crossing of the plan's budget (a `plan.budget_exceeded` event). */
  readonly budgetExceeded: boolean;
};

/**
 * The pause before a failed attempt's retry (docs/retries.md): `baseMs` after the first failed attempt,
 * doubled for each one after, never more than `capMs`. In ms, by the database clock.
 */
export type RetryBackoff = { readonly baseMs: number; readonly capMs: number };

/**
 * What a failed attempt tells the next one. The store adds `attempt`, `worker_id` and the fail's
 * `reason`, and keeps the whole as the task's last failure (`previous_failure` of the next claim).
 */
export type FailureReport = Omit<AttemptFailure, "attempt" | "worker_id" | "reason">;

/** A rate-limited worker's pause, recorded by a release as a `worker.paused` event. */
export type WorkerPause = {
  /** Until when the worker stops claiming. */
  readonly until: Date;
  /** The provider's words, redacted by the caller. */
  readonly message?: string | undefined;
};

/** A task a heartbeat names, with what its attempt last did. */
export type RunningTask = TaskRef & { readonly progress?: AttemptProgress | undefined };

/** Options of `TaskStore.importPlan`. */
export type ImportOptions = {
  readonly onProgress?: ((stored: number, total: number) => void) | undefined;
  /**
   * The budget of a plan this import creates, µUSD, set in the same transaction as its rows (`whilly
   * init --budget`); a plan already stored keeps its own. `undefined` for unlimited.
   */
  readonly budgetMicroUsd?: MicroUsd | undefined;
  /**
   * Store only a new plan: when the id (or the file's GitHub issue) is stored already, nothing is
   * written and the answer has `planCreated: false` and no tasks (an intake that lost a race).
   */
  readonly createOnly?: boolean | undefined;
  /**
   * The caller may only store its issue's plan (an OIDC caller of `POST /api/v1/plans`): a plan stored
   * under the file's id that was not made from the file's `github_issue_ref` is a `PlanConflict`, and
   * nothing changes.
   */
  readonly issuePlanOnly?: boolean | undefined;
};

/**
 * The task-queue port: every read and write whilly makes to Postgres. The store in `worker-api`
 * implements it on PGlite, node-postgres and the Neon driver alike; one contract suite tests it.
 *
 * Every transition checks the status against the core transition table, bumps `version`, and writes its
 * audit event in the same transaction. Durations are milliseconds; money is integer micro-dollars.
 */
export interface TaskStore {
  /**
   * Creates an empty plan. An existing id is left untouched (`created: false`), budget included.
   * @param budgetMicroUsd `undefined` for unlimited.
   */
  createPlan(input: {
    id: string;
    name: string;
    budgetMicroUsd?: MicroUsd | undefined;
    /** The per-attempt budget reservation (docs/claim.md); `undefined` for the default rule. */
    reserveMicroUsd?: MicroUsd | undefined;
  }): Promise<{ created: boolean; plan: PlanRecord }>;

  /**
   * Changes a plan's budget, writing one `plan.budget_changed` event. When the new budget is above the
   * plan's spend (or unlimited), claims resume and parked long polls are woken.
   * @param budgetMicroUsd `undefined` for unlimited.
   * @returns the plan before and after. @throws {PlanNotFound} @throws {InvalidInput}
   */
  setPlanBudget(
    planId: string,
    budgetMicroUsd: MicroUsd | undefined,
    options?: { reserveMicroUsd?: MicroUsd | null | undefined },
  ): Promise<{ before: PlanRecord; plan: PlanRecord }>;

  /**
   * Sets the plan's attempts per task (`whilly run --max-attempts`): tasks without their own
   * `max_attempts` get this many; `undefined` goes back to the default (3). Takes effect on each task's
   * next failure. @returns the plan after.
   * @throws {PlanNotFound} @throws {InvalidInput} unless an integer 1..`MAX_MAX_ATTEMPTS`.
   */
  setPlanMaxAttempts(planId: string, maxAttempts: number | undefined): Promise<PlanRecord>;

  /**
   * Stores a validated plan file (see {@link ImportResult}); idempotent on `plan.id`, and on
   * `plan.githubIssueRef`: a file naming an issue that already has a plan answers as for that plan's id
   * (its own id must be that plan's, else `PlanConflict`). Creating a plan that records its
   * `origin` or issue writes one `plan.created` event in the same transaction as the rows.
   * @param options.onProgress called as the new tasks are written: tasks stored so far, and how many
   *   are new. A large plan takes seconds; this is what a command shows meanwhile.
   */
  importPlan(plan: PlanSpec, options?: ImportOptions): Promise<ImportResult>;

  /** @returns the plan, or `undefined` when no plan has this id. */
  getPlan(planId: string): Promise<PlanRecord | undefined>;

  /**
   * @param ref a canonical `owner/repo/N` (see `parseGithubIssueRef`).
   * @returns the plan made from that GitHub issue, or `undefined` when none was.
   */
  findPlanByIssueRef(ref: string): Promise<PlanRecord | undefined>;

  /** Every plan with status counts, by id. */
  listPlans(): Promise<PlanSummary[]>;

  /** @returns the plan's tasks ordered by id. @throws {PlanNotFound} */
  listTasks(planId: string): Promise<TaskRecord[]>;

  /**
   * The plan's ready `PENDING` tasks (every dependency `DONE`) that no worker can run, and what each
   * waits for (docs/agents.md#routing). The workers are `options.capabilities` plus, with
   * `options.onlineWithinMs`, every worker online whose last heartbeat is that recent (a worker that
   * never claimed counts as an older one, `DEFAULT_CAPABILITIES`).
   * @returns by task id; empty when every ready task has a worker. @throws {PlanNotFound}
   */
  listWaiting(
    planId: string,
    options?: {
      capabilities?: readonly WorkerCapabilities[] | undefined;
      onlineWithinMs?: number | undefined;
    },
  ): Promise<WaitingTask[]>;

  /** @returns the tasks that wait on a failed or skipped dependency, ordered by id. @throws {PlanNotFound} */
  listBlocked(planId: string): Promise<BlockedTask[]>;

  /**
   * Events of one plan with `id > afterId`, oldest first.
   * @param limit at most this many rows; default 1000.
   */
  listEvents(planId: string, options?: { afterId?: number; limit?: number }): Promise<EventRecord[]>;

  /** Writes one plan-level or task-level event outside any transition (e.g. `plan.applied`). */
  appendEvent(input: {
    planId: string;
    taskId?: string | undefined;
    eventType: string;
    payload: JsonObject;
    detail?: JsonObject | undefined;
  }): Promise<void>;

  /**
   * Moves `PENDING` (and, for the gate, claimed) tasks to `SKIPPED` with a `task.skipped` event.
   * Already skipped tasks are returned unchanged and write no event.
   * @throws {VersionConflict} when the task is in a status SKIP may not leave.
   */
  skipTask(input: {
    planId: string;
    taskId: string;
    reason: string;
    detail?: JsonObject;
  }): Promise<TaskRecord>;

  /**
   * `keep_tasks`: every task back to `PENDING` (claims and attempts cleared, one `RESET` event each;
   * a retry's not-before time, the last failure, verification and progress cleared too), earlier task
   * events kept. `failed`: only FAILED tasks back to `PENDING` (a retry; attempts and spend
   * kept). `hard`: deletes the plan, its tasks and events.
   * @returns how many tasks were reset or deleted. @throws {PlanNotFound}
   */
  resetPlan(planId: string, mode: "keep_tasks" | "hard" | "failed"): Promise<number>;

  /** Registers a worker or refreshes it (status `online`, heartbeat now). `tokenHash` `undefined` leaves it as is. */
  upsertWorker(input: {
    workerId: string;
    hostname: string;
    tokenHash?: string | undefined;
  }): Promise<WorkerRecord>;

  /**
   * Records a heartbeat and renews to now + `leaseMs` the leases of the tasks the worker holds: every
   * one, or only those in `running` when the worker says what it runs (a task it holds without knowing,
   * because a claim reply was lost, then expires and returns to the queue).
   * With `running`, a held task left out of two such heartbeats since its claim (its claim's reply never
   * reached the worker) goes back to `PENDING` (`RELEASE`, reason `claim_lost`, the attempt given back
   * if the claim started it); a task named once, or a worker that sends no list, is never judged so.
   * A named task's `progress`, when given, is stored on the task if its lease was renewed.
   * @returns `ok: false` when the worker row does not exist; `renewed` lists the tasks whose lease was
   *   renewed and `released` those released as `claim_lost`, by plan then id (a named task the worker
   *   does not hold is in neither).
   */
  heartbeat(
    workerId: string,
    leaseMs: number,
    running?: readonly RunningTask[],
  ): Promise<{ ok: boolean; renewed: TaskRef[]; released: TaskRef[] }>;

  /**
   * Claims the most urgent ready task of the plan: `PENDING`, every dependency `DONE`, plan spend under
   * budget (strict `<`), its retry's not-before time passed, and no task of the plan in flight sharing
   * one of its `key_files` (docs/claim.md); priority then id; `FOR UPDATE SKIP LOCKED`. Sets the lease to now + `leaseMs`
   * and writes `CLAIM`. With `start`, the task also goes on to `IN_PROGRESS` (counting an attempt, writing
   * `START`) in the same transaction, so a worker needs one request and one transaction to begin a task.
   * Only a task the worker can run is claimed (docs/agents.md#routing): its agent, chosen as
   * `chooseAgent` does, among `routing.capabilities.agents`, and its `required_tags` among
   * `routing.capabilities.tags`; the worker row keeps the capabilities it claimed with.
   * @returns the claimed task, or `undefined` when none is ready.
   */
  claim(
    input: {
      planId: string;
      workerId: string;
      leaseMs: number;
      start?: boolean | undefined;
    } & ClaimRouting,
  ): Promise<ClaimedTask | undefined>;

  /**
   * `CLAIMED` → `IN_PROGRESS`, counting an attempt; writes `START`.
   * @throws {VersionConflict} @throws {NotOwner}
   */
  start(fence: TaskFence): Promise<TaskRecord>;

  /**
   * → `DONE`, adds `costMicroUsd` to the task's and the plan's spend, decrements the dependents'
   * unfinished-dependency counters, and writes `COMPLETE` (with `detail`), plus `plan.budget_exceeded`
   * on the crossing. Claim columns are cleared, and the attempt's budget reservation settled.
   * The cost counts once per `idempotencyKey` (the attempt's; derived from the fence when absent),
   * also when the fence is refused because the lease was lost: the agent ran and the money is spent.
   * `verification` and `work` (the branch and commit holding the task's work) are stored on the task and
   * `work` goes into the `COMPLETE` event as `branch` and `commit` (`undefined`, from older clients: none).
   * @throws {VersionConflict} @throws {NotOwner} (after recording the cost)
   */
  complete(
    fence: FinishReport & {
      detail?: JsonObject | undefined;
      verification?: Verification | undefined;
      work?: TaskWork | undefined;
    },
  ): Promise<FinishResult>;

  /**
   * Ends a failed attempt, adding its cost like {@link TaskStore.complete}. With attempts left
   * (attempts < the task's `max_attempts`, else its plan's, else 3) the task goes back to `PENDING`
   * (the `RETRY` edge) not before now + the backoff (see {@link RetryBackoff}; default 30 s doubling
   * to 10 min); the last attempt makes it `FAILED`. Either way `failure` plus `attempt`, `worker_id`
   * and `reason` become the task's last failure, dependents stay blocked, and one `FAIL` event is
   * written with `{version, reason, worker_id, cost_usd, attempt, retry, max_attempts, not_before}`
   * and `detail`, all in one statement.
   * @throws {VersionConflict} @throws {NotOwner} @throws {InvalidInput} for a bad backoff.
   */
  fail(
    fence: FinishReport & {
      reason: string;
      detail?: JsonObject | undefined;
      failure?: FailureReport | undefined;
      backoff?: RetryBackoff | undefined;
    },
  ): Promise<FinishResult>;

  /**
   * → `PENDING`, clearing the claim and settling its budget reservation; writes `RELEASE` with
   * `{version, reason}`. A cost counts once per idempotency key, like a finish's. A refunding reason
   * (`rate_limited`, `agent_unavailable`, ...) gives the attempt back. With `pause`, also writes
   * `worker.paused` `{worker_id, reason, until, message}` in the same transaction.
   * @throws {VersionConflict} @throws {NotOwner}
   */
  release(
    fence: TaskFence & {
      reason: string;
      /**
       * With `rate_limited`: the agent the limit is for. When the task's plan has `fallback_agents`,
       * the task moves to the next of them it has not been on (`TaskRecord.fallbackAgent`), and the
       * `RELEASE` event's detail says `{agent, fallback_agent}`.
       */
      agent?: string | undefined;
      costMicroUsd?: MicroUsd | undefined;
      idempotencyKey?: string | undefined;
      pause?: WorkerPause | undefined;
    },
  ): Promise<TaskRecord>;

  /**
   * Returns to `PENDING` every task claimed by `workerId` (any plan), with `RELEASE` events carrying
   * `reason` and `worker_id`. Used when a worker is known gone.
   * @param options.silentForMs when given (ms), releases only if the worker's last heartbeat is older
   *   than this by the database clock (or the worker has no row), and otherwise releases nothing: for
   *   callers whose evidence that the worker is gone is not conclusive on its own.
   * @returns the released tasks. @throws {InvalidInput} for a negative or fractional `silentForMs`.
   */
  releaseWorkerTasks(
    workerId: string,
    reason: string,
    options?: { silentForMs?: number | undefined },
  ): Promise<TaskRecord[]>;

  /** Returns to `PENDING` every task whose lease expired, with `RELEASE` `visibility_timeout`. */
  releaseExpiredLeases(): Promise<TaskRecord[]>;

  /**
   * Resolves a task id without a plan among the tasks `workerId` holds (`CLAIMED` or `IN_PROGRESS`).
   * @returns every plan in which the worker holds a task with this id, by plan id: empty when none,
   *   several when task ids repeat across the worker's plans.
   */
  findClaimedPlans(workerId: string, taskId: string): Promise<string[]>;

  /** Every worker row, by id. */
  listWorkers(): Promise<WorkerRecord[]>;

  /** @returns the task, or `undefined`. */
  getTask(planId: string, taskId: string): Promise<TaskRecord | undefined>;

  /** Releases the connection or pool. */
  close(): Promise<void>;
}
