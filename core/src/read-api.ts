import { z } from "zod";
import { ORIGIN_KINDS } from "./plan/origin.js";
import { taskPayloadSchema } from "./protocol.js";
import { TASK_STATUSES } from "./task-status.js";

/**
 * The read API for people and dashboards (`GET /api/v1/...`): plans with counts and spend, a plan's
 * tasks, and its audit events. Money is a decimal string with six decimals (`"0.059272"`), never a
 * float; timestamps are ISO 8601 in UTC.
 */

const usd = z.string().regex(/^\d+\.\d{6}$/);

/** Tasks counted by status; every status is present, zeros included. */
export const statusCountsSchema = z.record(z.enum(TASK_STATUSES), z.number().int().nonnegative());

/** Where a plan came from (the plan file's `origin`); `url` and `title` are null when unknown. */
export const planOriginPayloadSchema = z.object({
  kind: z.enum(ORIGIN_KINDS),
  reference: z.string(),
  url: z.string().nullable(),
  title: z.string().nullable(),
});
export type PlanOriginPayload = z.infer<typeof planOriginPayloadSchema>;

/**
 * One plan with its task counts, budget and spend, and the GitHub issue (`owner/repo/N`) it was made
 * from (null for none).
 */
export const planSummaryPayloadSchema = z.object({
  id: z.string(),
  name: z.string(),
  github_issue_ref: z.string().nullable(),
  created_at: z.string(),
  /** `null` means unlimited. */
  budget_usd: usd.nullable(),
  spent_usd: usd,
  task_count: z.number().int().nonnegative(),
  counts: statusCountsSchema,
});
export type PlanSummaryPayload = z.infer<typeof planSummaryPayloadSchema>;

/**
 * `GET /api/v1/plans` 200 body, plans ordered by id; with `?github_issue_ref=owner/repo/N`, only the
 * plan made from that issue (none or one).
 */
export const planListResponseSchema = z.object({ plans: z.array(planSummaryPayloadSchema) });
export type PlanListResponse = z.infer<typeof planListResponseSchema>;

/**
 * `GET /api/v1/plans/{id}` 200 body: the summary plus where the plan came from (`origin`, null when
 * the file did not say), whilly 4.x's `prd_file` (the plan file's, null when none), the agent
 * instructions of the plan file, and its checks: `verify` (commands, `[]` when none), `setup` (a
 * command, `null` when none) and `max_attempts` (the plan's own limit, `null` when unset: tasks then
 * get theirs or 3).
 */
export const planDetailResponseSchema = planSummaryPayloadSchema.extend({
  origin: planOriginPayloadSchema.nullable(),
  prd_file: z.string().nullable(),
  agent_instructions: z.record(z.string(), z.array(z.string())),
  verify: z.array(z.string()),
  setup: z.string().nullable(),
  max_attempts: z.number().int().positive().nullable(),
  /** The plan's `agent` and `model` (`null` when it names none) and `fallback_agents` (docs/agents.md). */
  agent: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  fallback_agents: z.array(z.string()).optional(),
});
export type PlanDetailResponse = z.infer<typeof planDetailResponseSchema>;

/** `GET /api/v1/plans/{id}/tasks` 200 body, tasks ordered by id. */
export const planTasksResponseSchema = z.object({ plan_id: z.string(), tasks: z.array(taskPayloadSchema) });
export type PlanTasksResponse = z.infer<typeof planTasksResponseSchema>;

/** One audit event. `task_id` is null for plan-level events; `detail` is null when none was written. */
export const eventPayloadSchema = z.object({
  id: z.number().int().positive(),
  plan_id: z.string(),
  task_id: z.string().nullable(),
  event_type: z.string(),
  payload: z.record(z.string(), z.json()),
  detail: z.record(z.string(), z.json()).nullable(),
  created_at: z.string(),
});
export type EventPayload = z.infer<typeof eventPayloadSchema>;

/**
 * `GET /api/v1/plans/{id}/events?after=ID&limit=N` 200 body: events with `id > after`, oldest first.
 * `next_after` is the id to pass as `after` for the next page (the last id returned, or `after` itself
 * when the page is empty), so a dashboard can follow the log.
 */
export const planEventsResponseSchema = z.object({
  plan_id: z.string(),
  events: z.array(eventPayloadSchema),
  next_after: z.number().int().nonnegative(),
});
export type PlanEventsResponse = z.infer<typeof planEventsResponseSchema>;

/**
 * One attempt of a task as `GET /api/v1/plans/{plan}/tasks/{task}` derives it from the audit log:
 * `outcome` `done`, `failed`, `released`, `running` or `unknown`; `cost_usd` a six-decimal string
 * (`null` for a release or while running); `duration_ms` from the claim to the end.
 */
export const attemptPayloadSchema = z.object({
  attempt: z.number().int().nonnegative(),
  worker_id: z.string().nullable(),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  outcome: z.enum(["done", "failed", "released", "running", "unknown"]),
  reason: z.string().nullable(),
  cost_usd: z.string().nullable(),
});

/**
 * `GET /api/v1/plans/{plan}/tasks/{task}` 200 body: the task as the list serves it plus its last
 * failure, its work and the failing check's output; its attempts; its latest 200 events, oldest first.
 */
export const taskDetailResponseSchema = z.object({
  task: taskPayloadSchema.extend({
    last_failure: z.record(z.string(), z.json()).nullable(),
    work: z.object({ branch: z.string(), commit: z.string() }).nullable(),
    verification_output: z.string().nullable(),
  }),
  attempts: z.array(attemptPayloadSchema),
  events: z.array(eventPayloadSchema),
});
export type TaskDetailResponse = z.infer<typeof taskDetailResponseSchema>;

/**
 * `POST /api/v1/plans` request body, for the OpenAPI document only: a plan file (docs/plan-format.md).
 * The route validates it with the plan-file parser, which is the rule; this schema names the main
 * fields and leaves the rest open, as plan files keep unknown fields.
 */
export const planFileSchema = z.looseObject({
  project: z.string().min(1),
  plan_id: z.string().min(1).optional(),
  github_issue_ref: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+\/\d+$/)
    .optional(),
  origin: z
    .strictObject({
      kind: z.enum(ORIGIN_KINDS),
      reference: z.string().min(1),
      url: z.string().optional(),
      title: z.string().optional(),
    })
    .optional(),
  agent_instructions: z.record(z.string(), z.json()).optional(),
  verify: z.union([z.string(), z.array(z.string())]).optional(),
  setup: z.string().optional(),
  max_attempts: z.union([z.number().int(), z.string()]).optional(),
  tasks: z.array(
    z.looseObject({
      id: z.string().min(1),
      status: z.string().optional(),
      priority: z.string().optional(),
      description: z.string().optional(),
      dependencies: z.array(z.string()).optional(),
      key_files: z.array(z.string()).optional(),
      acceptance_criteria: z.array(z.string()).optional(),
      test_steps: z.array(z.string()).optional(),
      prd_requirement: z.string().optional(),
    }),
  ),
});

/**
 * `POST /api/v1/plans` body of 201 (`created: true`, the plan is new) and 200 (`created: false`: a plan
 * with this id, or made from this GitHub issue, was already stored and is the answer; new tasks in the
 * file were added, stored ones kept). The lists are task ids, as `whilly plan import --json` prints
 * them; `plan_changed` names the plan-level fields of the file that differ from the stored plan's;
 * `task_count` counts the file's tasks; `warnings` are what `whilly plan import` would warn about.
 */
export const createPlanResponseSchema = z.object({
  created: z.boolean(),
  plan_id: z.string(),
  github_issue_ref: z.string().nullable(),
  task_count: z.number().int().nonnegative(),
  inserted: z.array(z.string()),
  unchanged: z.array(z.string()),
  changed: z.array(z.string()),
  demoted_to_pending: z.array(z.string()),
  plan_changed: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type CreatePlanResponse = z.infer<typeof createPlanResponseSchema>;

/**
 * `GET /api/v1/workers/pause` and the answer of `POST /api/v1/workers/pause` and `/resume`: whether an
 * operator paused every worker, since when (ISO 8601, UTC) and why (`admin`); `resumed` (resume only)
 * says whether a pause was lifted (false: none was in force).
 */
export const workersPauseResponseSchema = z.object({
  paused: z.boolean(),
  paused_at: z.string().nullable(),
  reason: z.string().nullable(),
  resumed: z.boolean().optional(),
});

/** See {@link workersPauseResponseSchema}. */
export type WorkersPauseResponse = z.infer<typeof workersPauseResponseSchema>;

/**
 * One registered worker as `GET /api/v1/workers` lists it: `status` is what the control plane last
 * recorded (`offline` once its heartbeats stopped or it was revoked), `last_heartbeat` and
 * `registered_at` are ISO 8601 UTC, `agents` and `tags` what it advertised at its latest claim (empty
 * before its first).
 */
export const workerPayloadSchema = z.object({
  worker_id: z.string(),
  hostname: z.string(),
  status: z.enum(["online", "offline"]),
  last_heartbeat: z.string(),
  registered_at: z.string(),
  agents: z.array(z.string()),
  tags: z.array(z.string()),
});
export type WorkerPayload = z.infer<typeof workerPayloadSchema>;

/** `GET /api/v1/workers` 200 body: the workers by id, and whether an operator paused them all. */
export const workerListResponseSchema = z.object({
  workers: z.array(workerPayloadSchema),
  pause: workersPauseResponseSchema.omit({ resumed: true }),
});
export type WorkerListResponse = z.infer<typeof workerListResponseSchema>;
