import { z } from "zod";
import { agentNameSchema, modelNameSchema, tagNameSchema } from "./agents/index.js";
import { VERIFICATIONS } from "./attempts/index.js";
import { gitBranchNameProblem } from "./git-branch.js";
import { formatUsd, MAX_MICRO_USD, parseUsd } from "./money.js";
import { MAX_INT4, MAX_NESTING } from "./plan/limits.js";
import { PRIORITIES, TASK_STATUSES } from "./task-status.js";

/**
 * Worker protocol v1: the request and response bodies of the task routes, shared by the control plane
 * (which validates requests) and the worker (which validates responses). Field names are snake_case as
 * on the wire (docs/protocol.md). `plan_id` is whilly's addition: task ids are unique per plan only.
 */

const id = z.string().min(1).max(256);

/** A task as the control plane sends it. */
export const taskPayloadSchema = z.object({
  plan_id: z.string().min(1),
  id: z.string().min(1),
  status: z.enum(TASK_STATUSES),
  priority: z.enum(PRIORITIES),
  description: z.string(),
  dependencies: z.array(z.string()),
  key_files: z.array(z.string()),
  acceptance_criteria: z.array(z.string()),
  test_steps: z.array(z.string()),
  prd_requirement: z.string(),
  version: z.number().int().nonnegative(),
  attempts: z.number().int().nonnegative(),
  claimed_by: z.string().nullable(),
  lease_expires_at: z.string().nullable(),
  /** The task's attempt limit after defaults (its own, its plan's, then 3). Older servers omit it. */
  max_attempts: z.number().int().positive().optional(),
  /** A retry is not claimed before this time (ISO 8601); `null` when it may run now. */
  not_before: z.string().nullable().optional(),
  /** The previous attempt's failure, told to this attempt's agent (`AttemptFailure`); `null` when none. */
  previous_failure: z.record(z.string(), z.json()).nullable().optional(),
  /** `passed` or `unverified` for a DONE task; `null` otherwise. */
  verification: z.enum(VERIFICATIONS).nullable().optional(),
  /** The branch holding a DONE task's work, as its worker reported it; `null` when none was. */
  branch: z.string().nullable().optional(),
  /** That branch's commit when the task was DONE; `null` when none was reported. */
  commit: z.string().nullable().optional(),
  /**
   * The agent this attempt runs on: in a claim reply, chosen by the control plane from force, fallback,
   * task, plan and the worker's `--agent` (`chooseAgent`); elsewhere the task's own `agent`. Older
   * servers omit it.
   */
  agent: z.string().nullable().optional(),
  /** The model this attempt runs (claim reply) or the task's own `model`; `null`: the agent's default. */
  model: z.string().nullable().optional(),
  /** Tags a worker must advertise to be handed this task (docs/agents.md#routing). */
  required_tags: z.array(z.string()).optional(),
  /** When the current claim began (ISO 8601); `null` when the task is not claimed. Older servers omit it. */
  claimed_at: z.string().nullable().optional(),
  /** Spend on the task over every attempt, failed ones included (USD, six decimals). Older servers omit it. */
  spent_usd: z
    .string()
    .regex(/^\d+\.\d{6}$/)
    .optional(),
  /**
   * What the running attempt last did, from its worker's heartbeats (`AttemptProgress`: `turns`,
   * `last_tool`, `phase`); `null` when not running or not told yet. Older servers omit it.
   */
  progress: z
    .object({
      turns: z.number().int().nonnegative().optional(),
      last_tool: z.string().optional(),
      phase: z.string().optional(),
    })
    .nullable()
    .optional(),
  /**
   * Read API: a ready `PENDING` task no online worker can run, and what it waits for: the agent and
   * the tags no online worker has (`WaitingFor`); `null` when some worker can run it or it is not ready.
   */
  waiting_for: z
    .object({ agent: z.string().optional(), tags: z.array(z.string()) })
    .nullable()
    .optional(),
});
export type TaskPayload = z.infer<typeof taskPayloadSchema>;

/** The plan context a claim carries, so the worker can build the prompt without another request. */
export const planPayloadSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** Lines per instruction key (docs/protocol.md); `before` and `after` are always sent. */
  agent_instructions: z.record(z.string(), z.array(z.string())),
  /** The plan's `verify` commands. Older servers omit it. */
  verify: z.array(z.string()).optional(),
  /** The plan's `setup` command, run in each new worktree; `null` when none. */
  setup: z.string().nullable().optional(),
  /** The plan's `agent` and `model` (docs/agents.md#choosing); `null` or absent when it names none. */
  agent: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  /** Agents a task may move to when its agent is refused for a usage limit, in order. */
  fallback_agents: z.array(z.string()).optional(),
});
export type PlanPayload = z.infer<typeof planPayloadSchema>;

/**
 * `POST /tasks/claim` body. `start: true` (whilly's addition) also moves the task to `IN_PROGRESS` in
 * the claim's transaction, saving the worker the separate start request.
 */
export const claimRequestSchema = z.strictObject({
  worker_id: id,
  plan_id: id,
  start: z.boolean().optional(),
  /**
   * What this worker can run now (docs/agents.md#routing): the agents it found working, less any that
   * a usage limit paused, and its tags. Absent (older workers): `claude` and no tags.
   */
  capabilities: z
    .strictObject({
      agents: z.array(agentNameSchema).max(64),
      tags: z.array(tagNameSchema).max(256),
    })
    .optional(),
  /** The worker's `--agent`/`--model` and `--force-agent`/`--force-model`, for `chooseAgent`. */
  choice: z
    .strictObject({
      agent: agentNameSchema.optional(),
      model: modelNameSchema.optional(),
      force_agent: agentNameSchema.optional(),
      force_model: modelNameSchema.optional(),
    })
    .optional(),
});
export type ClaimRequest = z.infer<typeof claimRequestSchema>;

/** A git commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits. */
export const commitIdSchema = z
  .string()
  .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "a commit id: 40 or 64 lowercase hex digits");

/**
 * A git branch name as whilly stores it (`refs/heads/` left out): 1 to 256 characters git takes as a
 * branch ({@link gitBranchNameProblem}), since integrate and workers fetch it by name.
 */
export const branchNameSchema = z
  .string()
  .min(1)
  .max(256)
  .superRefine((name, ctx) => {
    const problem = gitBranchNameProblem(name);
    if (problem !== undefined)
      ctx.addIssue({ code: "custom", message: `not a git branch name: it ${problem}` });
  });

/** One dependency's work in a claim reply: its task id, branch and commit (docs/protocol.md). */
export const dependencyWorkPayloadSchema = z.object({
  task_id: z.string().min(1),
  branch: z.string().min(1),
  commit: z.string().min(1),
});
export type DependencyWorkPayload = z.infer<typeof dependencyWorkPayloadSchema>;

/**
 * `POST /tasks/claim` 200 body (204 with no body when nothing became ready in time).
 * `dependency_work` (whilly's addition) lists the claimed task's dependencies whose worker reported a
 * branch and commit, in the order of the task's `dependencies`; a worker merges them into the task's
 * base before the agent starts. Older servers omit it.
 */
export const claimResponseSchema = z.object({
  task: taskPayloadSchema,
  plan: planPayloadSchema.nullable(),
  dependency_work: z.array(dependencyWorkPayloadSchema).optional(),
});
export type ClaimResponse = z.infer<typeof claimResponseSchema>;

/** A version the worker last saw: never above what the store's `INTEGER` column holds. */
const fence = { worker_id: id, plan_id: id.optional(), version: z.number().int().min(0).max(MAX_INT4) };

/** The amounts a `cost_usd` may carry: what the store's `NUMERIC(14,6)` spend columns hold. */
export const COST_USD_RANGE = `0 to ${formatUsd(MAX_MICRO_USD)}`;

/**
 * Cost in USD as a JSON number or decimal string (docs/protocol.md), from {@link COST_USD_RANGE},
 * rounded half up to six decimals; converted to micro-dollars with `parseUsd`.
 */
const cost = z
  .union([z.number(), z.string()])
  .refine((value) => parseUsd(value) !== undefined, {
    message: `cost_usd must be an amount of USD from ${COST_USD_RANGE}, as a JSON number or decimal string`,
  })
  .describe(`USD from ${COST_USD_RANGE}, a JSON number or decimal string; six decimals kept`);

/**
 * How deeply `value` nests arrays and objects (a scalar is 0, `{}` is 1), counted without recursion
 * and only up to `limit + 1`: a body of any depth is measured without overflowing the stack.
 */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A free-form JSON object from a worker (an attempt's `detail`), nested at most {@link MAX_NESTING}
 * levels deep as a plan's extra fields are: zod's JSON check, the store and the audit log all recurse,
 * so a deeper value would overflow the stack (a 500) instead of being refused (a 422 naming the field).
 */
const jsonObject = z
  .unknown()
  .superRefine((value, ctx) => {
    if (nestingDepth(value, MAX_NESTING) > MAX_NESTING) {
      ctx.addIssue({ code: "custom", message: `nested more than ${MAX_NESTING} levels deep`, abort: true });
    }
  })
  .pipe(z.record(z.string(), z.json()))
  // The pipe's input is `unknown`, which OpenAPI would show as any value: say what is accepted.
  .meta({ type: "object", description: `a JSON object, nested at most ${MAX_NESTING} levels deep` });

/**
 * Names the attempt a report is about, so its cost counts once however often the report is sent, and
 * also when it meets a lost lease (docs/protocol.md). Without it the control plane derives one from
 * the fence.
 */
const idempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .describe("the attempt's key: its cost counts once over every retry of the report");

/** `POST /tasks/{id}/start` body. */
export const startRequestSchema = z.strictObject({ ...fence });
export type StartRequest = z.infer<typeof startRequestSchema>;

/** `POST /tasks/{id}/complete` body; `detail` is whilly's addition (attempt summary for the audit log). */
export const completeRequestSchema = z
  .strictObject({
    ...fence,
    cost_usd: cost.nullable().optional(),
    idempotency_key: idempotencyKey.optional(),
    detail: jsonObject.optional(),
    /** How the worker accepted the work: `passed` (its checks ran and passed) or `unverified` (none to run). */
    verification: z.enum(VERIFICATIONS).optional(),
    /** The branch holding the task's work (whilly's addition; with `commit`). */
    branch: branchNameSchema.optional(),
    /** The commit of `branch` holding the task's work (whilly's addition; with `branch`). */
    commit: commitIdSchema.optional(),
  })
  .refine((body) => (body.branch === undefined) === (body.commit === undefined), {
    message: "branch and commit go together: send both or neither",
    path: ["commit"],
  });
export type CompleteRequest = z.infer<typeof completeRequestSchema>;

/** `POST /tasks/{id}/fail` body. */
export const failRequestSchema = z.strictObject({
  ...fence,
  reason: z.string().min(1).max(2048),
  cost_usd: cost.nullable().optional(),
  idempotency_key: idempotencyKey.optional(),
  detail: jsonObject.optional(),
  /**
   * What the next attempt is told (`AttemptFailure` without `attempt` and `worker_id`, which the
   * control plane fills in). With attempts left, the task goes back to `PENDING` with a not-before time.
   */
  failure: jsonObject.optional(),
});
export type FailRequest = z.infer<typeof failRequestSchema>;

/** `POST /tasks/{id}/release` body. */
export const releaseRequestSchema = z.strictObject({
  ...fence,
  reason: z.string().min(1).max(2048),
  cost_usd: cost.nullable().optional(),
  idempotency_key: idempotencyKey.optional(),
  /**
   * With `rate_limited`: until when (ISO 8601) the worker stops claiming; the release also writes a
   * `worker.paused` event `{worker_id, reason, until, message}`.
   */
  paused_until: z.iso.datetime({ offset: true }).optional(),
  /** With `paused_until`: the provider's words, for the `worker.paused` event. */
  pause_message: z.string().max(2048).optional(),
  /**
   * With `rate_limited`: the agent the limit is for (the attempt's). A task whose plan has
   * `fallback_agents` moves to the next of them (docs/agents.md#fallback).
   */
  agent: agentNameSchema.optional(),
});
export type ReleaseRequest = z.infer<typeof releaseRequestSchema>;

/**
 * The event types a worker may write about a task it ran (`POST /tasks/{id}/events`): the failure
 * analysis's findings (docs/triz.md#on-a-failed-task).
 */
export const WORKER_TASK_EVENT_TYPES = ["triz.contradiction", "triz.error"] as const;

/**
 * `POST /tasks/{id}/events` body: an event about a task the worker ran, and what finding it cost.
 * `event_type` `null` records the spend alone (a question that found no contradiction writes no event).
 * The event and the spend count once per `idempotency_key` however often the request is sent.
 */
export const taskEventRequestSchema = z.strictObject({
  worker_id: id,
  plan_id: id,
  event_type: z.enum(WORKER_TASK_EVENT_TYPES).nullable(),
  payload: jsonObject,
  cost_usd: cost.nullable().optional(),
  idempotency_key: z.string().min(1).max(200).describe("the event's key: it and its cost count once"),
});
export type TaskEventRequest = z.infer<typeof taskEventRequestSchema>;
/** `POST /tasks/{id}/events` reply: `recorded` false when the key was used already (nothing written). */
export const taskEventResponseSchema = z.object({ recorded: z.boolean() });
export type TaskEventResponse = z.infer<typeof taskEventResponseSchema>;

/**
 * `POST /workers/{id}/heartbeat` body and reply. `tasks` (whilly's addition) names the tasks the worker
 * is running: only their leases are renewed. Without it every lease the worker holds is renewed.
 */
export const heartbeatRequestSchema = z.strictObject({
  worker_id: id,
  tasks: z
    .array(
      z.strictObject({
        plan_id: id,
        task_id: id,
        /** What the attempt last did (`AttemptProgress`): turns, last tool, phase. */
        progress: z
          .strictObject({
            turns: z.number().int().nonnegative().max(MAX_INT4).optional(),
            last_tool: z.string().max(256).optional(),
            phase: z.string().max(64).optional(),
          })
          .optional(),
      }),
    )
    .max(1000)
    .optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;
export const heartbeatResponseSchema = z.object({ ok: z.boolean(), renewed: z.number().int().optional() });
export type HeartbeatResponse = z.infer<typeof heartbeatResponseSchema>;

/** `{"task": ...}`: the reply of start, complete, fail and release. */
export const taskResponseSchema = z.object({ task: taskPayloadSchema });
export type TaskResponse = z.infer<typeof taskResponseSchema>;

/**
 * Protocol v1's error envelope. A task's 409 adds `expected_version`, `actual_version` and
 * `actual_status` (null when the task is gone); a plan's 409 (`plan_conflict`) adds `plan_id`.
 */
export const errorEnvelopeSchema = z.object({
  error_code: z.string(),
  detail: z.string(),
  task_id: z.string().nullable(),
  expected_version: z.number().int().nullable().optional(),
  actual_version: z.number().int().nullable().optional(),
  actual_status: z.enum(TASK_STATUSES).nullable().optional(),
  /** `plan_conflict` (409): the plan that already has the file's GitHub issue. */
  plan_id: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** `POST /workers/register` body (sent with the bootstrap token). */
export const registerRequestSchema = z.strictObject({ hostname: z.string().min(1).max(256) });
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/**
 * `POST /workers/register` 201 body. `token` is the worker's bearer, shown once: a JWT whose `sub`
 * claim is `worker_id` (docs/protocol.md), so a worker can learn its id from the token alone.
 */
export const registerResponseSchema = z.object({ worker_id: id, token: z.string().min(1).max(4096) });
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

/** `GET /health` body: 200 `ok`, or 503 `unavailable` with a reason that names no host or secret. */
export const healthResponseSchema = z.union([
  z.object({ status: z.literal("ok") }),
  z.object({ status: z.literal("unavailable"), detail: z.string() }),
]);
export type HealthResponse = z.infer<typeof healthResponseSchema>;
