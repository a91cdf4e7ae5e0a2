import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * whilly's Postgres schema: plans, their tasks (identity `(plan_id, id)`), the dependency edges, the
 * workers that claim tasks, and the append-only audit log. Migrations under `drizzle/migrations/` are
 * generated from this file with `npx drizzle-kit generate --name <what_it_does>`.
 *
 * The status and priority lists below restate core's `TASK_STATUSES` and `PRIORITIES` as SQL literals
 * because this package depends on drizzle-orm only; a store test compares them with core's lists.
 * Money is `NUMERIC(14,6)`: agent CLIs report cost to the micro-dollar, and sums must not drift.
 */

/** A JSON object as stored in a JSONB column (the same shape as core's `JsonObject`). */
export type JsonObject = { [key: string]: JsonValue };
type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

const money = (name: string) => numeric(name, { precision: 14, scale: 6 });

/**
 * Plan and task ids compare byte by byte (`COLLATE "C"`) whatever the server's locale, so the claim
 * order's tie-break on id, and listings by id, are the same on every Postgres and on PGlite.
 */
const idText = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * A 64-bit transaction id (`xid8`, never wraps), read as its decimal text: the drivers return it so,
 * and it may pass 2^53.
 */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

/** The statuses a task may hold; the same six, in the same order, as core's `TASK_STATUSES`. */
export const STATUS_SQL_LIST = "'PENDING', 'CLAIMED', 'IN_PROGRESS', 'DONE', 'FAILED', 'SKIPPED'";
/** The priorities, most urgent first, as core's `PRIORITIES`. */
export const PRIORITY_SQL_LIST = "'critical', 'high', 'medium', 'low'";

/** A machine that claims tasks. `token_hash` is the SHA-256 hex of its bearer; NULL means none or revoked. */
export const workers = pgTable(
  "workers",
  {
    workerId: text("worker_id").primaryKey(),
    hostname: text("hostname").notNull(),
    tokenHash: text("token_hash"),
    status: text("status").notNull().default("online"),
    lastHeartbeat: instant("last_heartbeat").notNull().defaultNow(),
    registeredAt: instant("registered_at").notNull().defaultNow(),
    /**
     * What the worker said it can run at its latest claim (docs/agents.md#routing): the agents it found
     * working and its tags; NULL before its first claim. The claim writes them only when they change.
     */
    agents: text("agents").array(),
    tags: text("tags").array(),
    /** The worker's `--agent` and `--force-agent` at its latest claim: they decide what agentless tasks run on. */
    agent: text("agent"),
    forceAgent: text("force_agent"),
    /** When a claim last changed the columns above. */
    capabilitiesAt: instant("capabilities_at"),
  },
  (t) => [
    check("workers_status_valid", sql`${t.status} IN ('online', 'offline')`),
    // Two workers never share a bearer; revoked (NULL) hashes do not collide.
    uniqueIndex("workers_token_hash_unique").on(t.tokenHash).where(sql`${t.tokenHash} IS NOT NULL`),
    // The offline sweep scans online workers by heartbeat age.
    index("workers_online_heartbeat").on(t.lastHeartbeat).where(sql`${t.status} = 'online'`),
  ],
);

/** A plan: one imported plan file, its budget and its spend. */
export const plans = pgTable(
  "plans",
  {
    id: idText("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
    /** NULL means unlimited. */
    budgetUsd: money("budget_usd"),
    spentUsd: money("spent_usd").notNull().default("0"),
    /**
     * What a claim reserves per attempt in a budgeted plan (docs/claim.md); NULL means the largest
     * cost among the plan's last 20 recorded attempt costs.
     */
    reserveUsd: money("reserve_usd"),
    /** Sum of the reservations of the plan's attempts in flight; kept only while the plan has a budget. */
    reservedUsd: money("reserved_usd").notNull().default("0"),
    /** How many attempts in flight hold a reservation (of any amount, 0 included). */
    reservedAttempts: integer("reserved_attempts").notNull().default(0),
    /**
     * Whether the latest spend addition took spend from under the budget to at or over it: written by
     * the addition's own UPDATE, which sees the spend before it, so the statement learns of the crossing
     * without locking the row first (docs/claim.md says why a statement touches the plan row once).
     */
    lastSpendCrossed: boolean("last_spend_crossed").notNull().default(false),
    agentInstructions: jsonb("agent_instructions")
      .$type<JsonObject>()
      .notNull()
      .default(sql`'{"before": [], "after": []}'::jsonb`),
    /** Top-level plan-file fields whilly does not interpret, kept for export. */
    extra: jsonb("extra").$type<JsonObject>().notNull().default(sql`'{}'::jsonb`),
    /** `owner/repo/N` of the GitHub issue a plan was made from, for intake that must not run twice. */
    githubIssueRef: text("github_issue_ref"),
    /**
     * Where the plan came from, the plan file's `origin`: `{kind, reference, url?, title?}` (core's
     * `PlanOrigin`); NULL when the file said nothing.
     */
    origin: jsonb("origin").$type<JsonObject>(),
    prdFile: text("prd_file"),
    /** The plan file's `verify` commands (docs/verification.md); `[]` when none. */
    verify: jsonb("verify").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** The plan file's `setup` command; NULL when none. */
    setup: text("setup"),
    /** Attempts per task when the task says none (docs/retries.md); NULL means 3. */
    maxAttempts: integer("max_attempts"),
    /** The plan file's `agent` and `model` (docs/agents.md#choosing); NULL when it names none. */
    agent: text("agent"),
    model: text("model"),
    /** The plan file's `fallback_agents`, in order: where a task goes after a usage limit; `{}` when none. */
    fallbackAgents: text("fallback_agents").array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [
    check("plans_budget_non_negative", sql`${t.budgetUsd} IS NULL OR ${t.budgetUsd} >= 0`),
    check("plans_spent_non_negative", sql`${t.spentUsd} >= 0`),
    check(
      "plans_reservations_non_negative",
      sql`(${t.reserveUsd} IS NULL OR ${t.reserveUsd} >= 0) AND ${t.reservedUsd} >= 0 AND ${t.reservedAttempts} >= 0`,
    ),
    check("plans_max_attempts_positive", sql`${t.maxAttempts} IS NULL OR ${t.maxAttempts} >= 1`),
    uniqueIndex("plans_github_issue_ref_unique")
      .on(t.githubIssueRef)
      .where(sql`${t.githubIssueRef} IS NOT NULL`),
  ],
);

/**
 * A task and its queue state. Claim columns (`claimed_by`, `claimed_at`, `lease_expires_at`) are set
 * exactly while the task is `CLAIMED` or `IN_PROGRESS`: a finished task keeps no owner, so a worker that
 * finished tasks can still be deleted, and no claimed task lacks a lease for the sweep to find.
 */
export const tasks = pgTable(
  "tasks",
  {
    planId: idText("plan_id")
      .notNull()
      .references(() => plans.id, { onDelete: "cascade" }),
    id: idText("id").notNull(),
    status: text("status").notNull().default("PENDING"),
    priority: text("priority").notNull().default("medium"),
    /**
     * 0 for critical up to 3 for low, derived by Postgres so it can never disagree with `priority`.
     * Why a stored column rather than `ORDER BY CASE priority ...`: the claim index below can then be
     * walked in claim order, so a claim reads one index entry (plus the rows SKIP LOCKED passes over)
     * instead of sorting every ready task. Measured with EXPLAIN ANALYZE on Postgres 15, one plan with
     * 100,000 ready and 100,000 blocked tasks: the CASE form ran a sequential scan and a sort of every
     * ready row (260 ms per claim, spilling to disk), the rank index an index scan stopping at the first
     * row (0.09 ms). An expression index on the CASE would also work, but only while every query repeats
     * the expression exactly.
     */
    priorityRank: smallint("priority_rank")
      .notNull()
      .generatedAlwaysAs(
        (): SQL =>
          sql`CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`,
      ),
    description: text("description").notNull().default(""),
    /** Dependency ids in plan-file order (for export); `task_deps` holds the same edges for queries. */
    dependencies: jsonb("dependencies").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    keyFiles: jsonb("key_files").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    acceptanceCriteria: jsonb("acceptance_criteria").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    testSteps: jsonb("test_steps").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    prdRequirement: text("prd_requirement").notNull().default(""),
    /** Task fields whilly does not interpret (`phase`, `title`, ...), kept for export. */
    extra: jsonb("extra").$type<JsonObject>().notNull().default(sql`'{}'::jsonb`),
    /** Optimistic-lock version, bumped by every transition. */
    version: integer("version").notNull().default(0),
    claimedBy: text("claimed_by").references(() => workers.workerId, { onDelete: "set null" }),
    claimedAt: instant("claimed_at"),
    leaseExpiresAt: instant("lease_expires_at"),
    /** Agent runs so far. */
    attempts: integer("attempts").notNull().default(0),
    /**
     * Heartbeats carrying a task list that the claiming worker sent since the claim without naming
     * this task: set to 0 by the claim, `NULL` once a heartbeat names it (or never claimed). Two such
     * heartbeats mean the claim's reply never reached the worker, and the heartbeat releases the task
     * (`claim_lost`, docs/worker.md).
     */
    unnamedHeartbeats: smallint("unnamed_heartbeats"),
    /** Spend over every attempt, failed ones included. */
    spentUsd: money("spent_usd").notNull().default("0"),
    /** The running attempt's budget reservation; NULL when it holds none (no budget, or not claimed). */
    reservedUsd: money("reserved_usd"),
    /**
     * How many dependencies are not `DONE`. Kept by the store (set on insert, decremented by the
     * completing transaction, recomputed by reset) so a claim tests one column instead of joining
     * `task_deps`, which stays fast when most of a large plan is blocked.
     */
    unfinishedDeps: integer("unfinished_deps").notNull().default(0),
    /** The task file's `max_attempts`; NULL means its plan's (docs/retries.md). */
    maxAttempts: integer("max_attempts"),
    /** A retry is not claimed before this instant (database clock); NULL when it may run now. */
    notBefore: instant("not_before"),
    /** The last failed attempt (core's `AttemptFailure`), carried to the next claim as `previous_failure`. */
    lastFailure: jsonb("last_failure").$type<JsonObject>(),
    /** How DONE was accepted: `passed` or `unverified`; NULL unless DONE (or reported by an older client). */
    verification: text("verification"),
    /**
     * Where a DONE task's work is, as its worker reported on complete: its git branch and commit (both or
     * neither). NULL when none was reported (an older client, or not DONE); a reset to PENDING clears them.
     */
    workBranch: text("work_branch"),
    workCommit: text("work_commit"),
    /** The running attempt's last activity from heartbeats (`turns`, `last_tool`, `phase`); NULL when none. */
    progress: jsonb("progress").$type<JsonObject>(),
    /** The task file's `agent` and `model`; NULL: its plan's, else the claiming worker's. */
    agent: text("agent"),
    model: text("model"),
    /** Tags a claiming worker must advertise (`required_tags <@ $tags` in the claim); `{}` when none. */
    requiredTags: text("required_tags").array().notNull().default(sql`'{}'::text[]`),
    /**
     * The agent the task moved to after a usage limit (the next of its plan's `fallback_agents`); it
     * wins over the task's and plan's agent until a reset clears it. NULL when none.
     */
    fallbackAgent: text("fallback_agent"),
    createdAt: instant("created_at").notNull().defaultNow(),
    updatedAt: instant("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "tasks_pkey", columns: [t.planId, t.id] }),
    check("tasks_status_valid", sql.raw(`"status" IN (${STATUS_SQL_LIST})`)),
    check("tasks_priority_valid", sql.raw(`"priority" IN (${PRIORITY_SQL_LIST})`)),
    check(
      "tasks_claim_consistent",
      sql`(${t.status} IN ('CLAIMED', 'IN_PROGRESS')) = (${t.claimedBy} IS NOT NULL)
        AND (${t.claimedBy} IS NULL) = (${t.claimedAt} IS NULL)
        AND (${t.claimedBy} IS NULL) = (${t.leaseExpiresAt} IS NULL)`,
    ),
    check(
      "tasks_counters_non_negative",
      sql`${t.version} >= 0 AND ${t.attempts} >= 0 AND ${t.unfinishedDeps} >= 0 AND ${t.spentUsd} >= 0`,
    ),
    check(
      "tasks_verification_valid",
      sql`${t.verification} IS NULL OR ${t.verification} IN ('passed', 'unverified')`,
    ),
    check("tasks_max_attempts_positive", sql`${t.maxAttempts} IS NULL OR ${t.maxAttempts} >= 1`),
    check("tasks_work_both_or_neither", sql`(${t.workBranch} IS NULL) = (${t.workCommit} IS NULL)`),
    // The claim walks this index in claim order: ready tasks of one plan, most urgent first, then id.
    // A retry's `not_before` is a filter on the rows it reads, not part of the key: few tasks wait on
    // one at a time, and the walk stops at the first claimable row.
    index("tasks_ready_claim_order")
      .on(t.planId, t.priorityRank, t.id)
      .where(sql`${t.status} = 'PENDING' AND ${t.unfinishedDeps} = 0`),
    // The key-file test of a claim looks at the tasks of one plan in flight (claimed_by is set exactly then).
    index("tasks_in_flight").on(t.planId).where(sql`${t.claimedBy} IS NOT NULL`),
    // Heartbeats renew, and the offline sweep releases, the leases of one worker.
    index("tasks_claimed_by").on(t.claimedBy).where(sql`${t.claimedBy} IS NOT NULL`),
    // The claim of a worker without tags walks this one instead: ready tasks that require none, in claim
    // order. Walking the index above, it would pass over every tagged task ahead of the first it can
    // run (EXPLAIN ANALYZE, 100,000 ready tasks of which the 90,000 most urgent need a tag: 48 ms and
    // 2,113 buffers per claim there, an index scan stopping at the first row here).
    index("tasks_ready_untagged_claim_order")
      .on(t.planId, t.priorityRank, t.id)
      .where(sql`${t.status} = 'PENDING' AND ${t.unfinishedDeps} = 0 AND ${t.requiredTags} = '{}'::text[]`),
    // Tasks a worker's tags cover (`required_tags <@ $tags`), for queries that look for them by tag;
    // a claim walks a claim-order index above instead, since it wants the most urgent one first.
    index("tasks_required_tags").using("gin", t.requiredTags),
    // The lease sweep finds expired leases.
    index("tasks_lease_expires_at").on(t.leaseExpiresAt).where(sql`${t.leaseExpiresAt} IS NOT NULL`),
  ],
);

/** One dependency edge: `task_id` waits for `depends_on`, both in `plan_id`. */
export const taskDeps = pgTable(
  "task_deps",
  {
    planId: idText("plan_id").notNull(),
    taskId: idText("task_id").notNull(),
    dependsOn: idText("depends_on").notNull(),
  },
  (t) => [
    primaryKey({ name: "task_deps_pkey", columns: [t.planId, t.taskId, t.dependsOn] }),
    foreignKey({
      name: "task_deps_task_fk",
      columns: [t.planId, t.taskId],
      foreignColumns: [tasks.planId, tasks.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "task_deps_depends_on_fk",
      columns: [t.planId, t.dependsOn],
      foreignColumns: [tasks.planId, tasks.id],
    }).onDelete("cascade"),
    check("task_deps_not_self", sql`${t.taskId} <> ${t.dependsOn}`),
    // A completing task finds the dependents whose counters it decrements.
    index("task_deps_depends_on").on(t.planId, t.dependsOn),
  ],
);

/**
 * The append-only audit log: every transition's event (written in the transition's transaction) and
 * plan-level events. `id` is the canonical order. `idempotency_key` lets a retried batch flush skip
 * the rows an earlier attempt already wrote.
 */
export const events = pgTable(
  "events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    planId: idText("plan_id")
      .notNull()
      .references(() => plans.id, { onDelete: "cascade" }),
    taskId: idText("task_id"),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").$type<JsonObject>().notNull().default(sql`'{}'::jsonb`),
    detail: jsonb("detail").$type<JsonObject>(),
    createdAt: instant("created_at").notNull().defaultNow(),
    idempotencyKey: text("idempotency_key"),
    /**
     * The writing transaction's id, set by the database at insert. Ids come from a sequence before
     * commit, so a later id can commit first; the event stream delivers in `(xid, id)` order and only
     * events of transactions older than every open one, an order a late commit cannot land behind.
     */
    xid: xid8("xid").notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    index("events_plan_id_id").on(t.planId, t.id),
    // GET /metrics counts each plan's attempts and times them (a finish against its task's claim
    // before it) from these three event types, read in this order.
    index("events_attempts")
      .on(t.planId, t.taskId, t.id)
      .where(sql`${t.eventType} IN ('CLAIM', 'COMPLETE', 'FAIL')`),
    index("events_plan_id_xid_id").on(t.planId, t.xid, t.id),
    index("events_xid_id").on(t.xid, t.id),
    uniqueIndex("events_idempotency_key_unique")
      .on(t.idempotencyKey)
      .where(sql`${t.idempotencyKey} IS NOT NULL`),
  ],
);

/**
 * The cost each attempt reported, once: `idempotency_key` names the attempt (sent by the worker, or
 * derived from the report's fence for a client that sends none), so a retried report, or one that meets
 * a lost lease, adds its cost to the plan exactly once. The latest rows of a plan also give the default
 * budget reservation (docs/claim.md).
 */
export const attemptCosts = pgTable(
  "attempt_costs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    planId: idText("plan_id")
      .notNull()
      .references(() => plans.id, { onDelete: "cascade" }),
    taskId: idText("task_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    costUsd: money("cost_usd").notNull(),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("attempt_costs_plan_key_unique").on(t.planId, t.idempotencyKey),
    index("attempt_costs_plan_id_id").on(t.planId, t.id),
    check("attempt_costs_cost_non_negative", sql`${t.costUsd} >= 0`),
  ],
);

/**
 * Read-only tokens of the read API (`whilly token create --read-only`). `token_hash` is the SHA-256 hex
 * of the token, which is shown once and never stored; `revoked_at` set means refused from then on (the
 * row stays, so `whilly token list` shows what was revoked and when).
 */
export const readTokens = pgTable(
  "read_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    label: text("label").notNull().default(""),
    createdAt: instant("created_at").notNull().defaultNow(),
    revokedAt: instant("revoked_at"),
  },
  (t) => [uniqueIndex("read_tokens_token_hash_unique").on(t.tokenHash)],
);

/**
 * Workers an operator paused (`whilly worker pause`): a row with `scope` `'*'` pauses every worker,
 * also those that register later. A paused worker's claims find nothing (the claim statement reads
 * this table by primary key) while its running task finishes normally; deleting the row resumes.
 */
export const workerPauses = pgTable("worker_pauses", {
  /** `'*'`: every worker (the only scope the API sets today). */
  scope: text("scope").primaryKey(),
  /** Why: `admin` for an operator's pause. */
  reason: text("reason").notNull(),
  pausedAt: instant("paused_at").notNull().defaultNow(),
});
