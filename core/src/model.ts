import type { AttemptFailure, Verification } from "./attempts/index.js";
import type { MicroUsd } from "./money.js";
import type { Priority, TaskStatus } from "./task-status.js";

/** JSON values kept verbatim from a plan file (unknown task or plan fields) and in event payloads. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A task as a plan file describes it, after validation and normalisation. Identity is
 * `(planId, id)`: two plans may both hold `T-001`.
 */
export type TaskSpec = {
  readonly id: string;
  readonly status: TaskStatus;
  readonly priority: Priority;
  readonly description: string;
  readonly dependencies: readonly string[];
  readonly keyFiles: readonly string[];
  readonly acceptanceCriteria: readonly string[];
  readonly testSteps: readonly string[];
  readonly prdRequirement: string;
  /** The task's `max_attempts`; its plan's, then 3, when undefined (see `effectiveMaxAttempts`). */
  readonly maxAttempts?: number | undefined;
  /** The agent the task runs on (docs/agents.md#choosing); undefined: its plan's, else the worker's. */
  readonly agent?: string | undefined;
  /** The model for the task's agent; undefined: the next level's, else the agent's default. */
  readonly model?: string | undefined;
  /** Tags a worker must advertise to be handed the task; undefined (never empty) when none. */
  readonly requiredTags?: readonly string[] | undefined;
  /** Optimistic-lock version; bumped by every transition. */
  readonly version: number;
  /** Fields the schema does not know (`phase`, `category`, `title`, ...), kept for export. */
  readonly extra: JsonObject;
};

/**
 * `agent_instructions` from the plan file: lines per key, put into every prompt of the plan. Known keys
 * place their lines (`before_start`, `before`, `during_work`, `before_finish`, `after`); any other key
 * becomes a section of its own (docs/plan-format.md).
 */
export type AgentInstructions = { readonly [key: string]: readonly string[] };

/** One of `ORIGIN_KINDS`: an idea, a PRD file, a GitHub issue, a Taskmaster file. */
export type OriginKind = "idea" | "prd" | "github_issue" | "taskmaster";

/**
 * Where a plan came from (the plan file's `origin`): `reference` is the idea's slug, the PRD's path,
 * the issue as `owner/repo/N` or the Taskmaster file; `url` and `title` when known.
 */
export type PlanOrigin = {
  readonly kind: OriginKind;
  readonly reference: string;
  readonly url?: string | undefined;
  readonly title?: string | undefined;
};

/** A GitHub issue reference, canonical: owner and repository in lower case; `ref` is `owner/repo/N`. */
export type GithubIssueRef = {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
  readonly ref: string;
};

/** A validated plan file. */
export type PlanSpec = {
  readonly id: string;
  /** The plan file's `project`. */
  readonly name: string;
  readonly tasks: readonly TaskSpec[];
  readonly agentInstructions: AgentInstructions;
  /** `agent_instructions` values that are not lists of strings: kept for export, left out of prompts. */
  readonly keptInstructions: JsonObject;
  /** The file's `reserve_usd` (µUSD): what a claim reserves per attempt while the plan has a budget. */
  readonly reserveMicroUsd?: MicroUsd | undefined;
  /** The file's `verify`: shell commands run after every attempt's `test_steps`, and on the merged tree. */
  readonly verify?: readonly string[] | undefined;
  /** The file's `setup`: a shell command run in each new worktree before the agent. */
  readonly setup?: string | undefined;
  /** The file's `max_attempts`: the default of its tasks. */
  readonly maxAttempts?: number | undefined;
  /** The file's `agent`: the agent of tasks that name none (docs/agents.md#choosing). */
  readonly agent?: string | undefined;
  /** The file's `model`, for its `agent`'s tasks. */
  readonly model?: string | undefined;
  /** The file's `fallback_agents`, in order; undefined (never empty) when none. */
  readonly fallbackAgents?: readonly string[] | undefined;
  /**
   * The GitHub issue the plan was made from, `owner/repo/N` in canonical form: at most one plan per
   * issue (import answers with the plan that has it).
   */
  readonly githubIssueRef?: string | undefined;
  /** Where the plan came from (`init`, forge intake, Taskmaster import). */
  readonly origin?: PlanOrigin | undefined;
  /** Top-level fields other than `plan_id`, `project`, `tasks` (e.g. `prd_file`), kept for export. */
  readonly extra: JsonObject;
};

/** A stored plan. Money is integer micro-dollars. */
export type PlanRecord = {
  readonly id: string;
  readonly name: string;
  /** `undefined` means unlimited. */
  readonly budgetMicroUsd: MicroUsd | undefined;
  readonly spentMicroUsd: MicroUsd;
  /**
   * What a claim reserves per attempt while the plan has a budget (docs/claim.md); `undefined` for the
   * default (the largest of the last 20 recorded attempt costs).
   */
  readonly reserveMicroUsd?: MicroUsd | undefined;
  /** The reservations of the attempts in flight, µUSD. */
  readonly reservedMicroUsd?: MicroUsd | undefined;
  /** See {@link PlanSpec.verify}; empty when none. */
  readonly verify?: readonly string[] | undefined;
  /** See {@link PlanSpec.setup}. */
  readonly setup?: string | undefined;
  /** See {@link PlanSpec.maxAttempts}; `--max-attempts` stores it too. */
  readonly maxAttempts?: number | undefined;
  /** See {@link PlanSpec.agent}. */
  readonly agent?: string | undefined;
  /** See {@link PlanSpec.model}. */
  readonly model?: string | undefined;
  /** See {@link PlanSpec.fallbackAgents}. */
  readonly fallbackAgents?: readonly string[] | undefined;
  readonly agentInstructions: AgentInstructions;
  /** See {@link PlanSpec.keptInstructions}. */
  readonly keptInstructions: JsonObject;
  /** See {@link PlanSpec.githubIssueRef}. */
  readonly githubIssueRef?: string | undefined;
  /** See {@link PlanSpec.origin}. */
  readonly origin?: PlanOrigin | undefined;
  readonly extra: JsonObject;
  readonly createdAt: Date;
};

/** A stored task: the spec plus its queue state. */
export type TaskRecord = TaskSpec & {
  readonly planId: string;
  /** The worker holding the lease, while `CLAIMED` or `IN_PROGRESS`. */
  readonly claimedBy: string | undefined;
  readonly claimedAt: Date | undefined;
  /** When the lease runs out unless a heartbeat renews it. */
  readonly leaseExpiresAt: Date | undefined;
  /** Agent runs so far (each claim that reached the agent counts one). */
  readonly attempts: number;
  /** Spend on this task over every attempt, failed ones included. */
  readonly spentMicroUsd: MicroUsd;
  /** A retry is not claimed before this time (database clock); undefined when it may run now. */
  readonly notBefore?: Date | undefined;
  /** The last failed attempt, told to the next one; undefined before any failure. */
  readonly lastFailure?: AttemptFailure | undefined;
  /** How DONE was accepted; undefined unless DONE. */
  readonly verification?: Verification | undefined;
  /** Where a DONE task's work is (its branch and commit), as its worker reported; undefined when none was. */
  readonly work?: TaskWork | undefined;
  /** The running attempt's last activity, from heartbeats (turns, last tool); undefined when none. */
  readonly progress?: AttemptProgress | undefined;
  /**
   * The agent the control plane moved the task to after a usage limit (one of its plan's
   * `fallback_agents`); undefined when none. A reset clears it.
   */
  readonly fallbackAgent?: string | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/**
 * The git branch and commit holding a DONE task's work (docs/worker.md): a dependent task's worktree
 * starts from its dependencies' commits, and `whilly plan integrate` merges them.
 */
export type TaskWork = {
  /** The task's branch, e.g. `whilly-tasks/<plan-slug>/<task-slug>`; on the clone's `origin` when pushed. */
  readonly branch: string;
  /** The branch's commit when the task was DONE: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits. */
  readonly commit: string;
};

/** A dependency's work, as a claim carries it: the dependency's task id and its {@link TaskWork}. */
export type DependencyWork = TaskWork & { readonly taskId: string };

/** One row of the append-only audit log. */
export type EventRecord = {
  readonly id: number;
  readonly planId: string;
  readonly taskId: string | undefined;
  readonly eventType: string;
  readonly payload: JsonObject;
  readonly detail: JsonObject | undefined;
  readonly createdAt: Date;
};

/** A stored worker. */
export type WorkerRecord = {
  readonly workerId: string;
  readonly hostname: string;
  readonly status: "online" | "offline";
  readonly lastHeartbeat: Date;
  readonly registeredAt: Date;
  /** What the worker said it can run at its latest claim; undefined before its first claim. */
  readonly capabilities?: WorkerCapabilities | undefined;
};

/**
 * What a worker can run (docs/agents.md#routing): the agents it found working and its tags. A worker
 * that never said (an older one) counts as {@link DEFAULT_CAPABILITIES}.
 */
export type WorkerCapabilities = {
  readonly agents: readonly string[];
  readonly tags: readonly string[];
  /** The worker's `--agent`: the agent of tasks whose task and plan name none. */
  readonly agent?: string | undefined;
  /** The worker's `--force-agent`: the agent of every task it runs. */
  readonly forceAgent?: string | undefined;
};

/** What a running attempt last did, as its worker's heartbeat tells it (JSON field names). */
export type AttemptProgress = {
  /** Agent turns so far. */
  readonly turns?: number | undefined;
  /** The last tool the agent called (`Bash`, `Edit`, ...). */
  readonly last_tool?: string | undefined;
  /** The phase whilly is in: `setup`, `agent`, `verify`, `merge`. */
  readonly phase?: string | undefined;
};
