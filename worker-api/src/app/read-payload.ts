import {
  type EventPayload,
  type EventRecord,
  formatUsd,
  type PlanDetailResponse,
  type PlanSummary,
  type PlanSummaryPayload,
  redactJson,
  type WorkerPayload,
  type WorkerRecord,
  type WorkersPauseResponse,
} from "@whilly/core";
import type { WorkersPause } from "../store/store.js";
import { instructionsPayload } from "./payload.js";

/** A plan with its counts as the read API sends it: money as six-decimal strings, times in ISO 8601. */
export function toPlanSummaryPayload(plan: PlanSummary): PlanSummaryPayload {
  return {
    id: plan.id,
    name: plan.name,
    github_issue_ref: plan.githubIssueRef ?? null,
    created_at: plan.createdAt.toISOString(),
    budget_usd: plan.budgetMicroUsd === undefined ? null : formatUsd(plan.budgetMicroUsd),
    spent_usd: formatUsd(plan.spentMicroUsd),
    task_count: plan.taskCount,
    counts: { ...plan.counts },
  };
}

/**
 * `GET /api/v1/plans/{id}`: the summary plus the plan's origin, whilly 4.x's `prd_file` (the plan
 * file's own, kept among its other fields), the agent instructions, and
 * the plan's `verify`, `setup` and own `max_attempts` (`null` when unset, not the default applied), and
 * its `agent`, `model` and `fallback_agents`.
 */
export function toPlanDetail(plan: PlanSummary): PlanDetailResponse {
  return {
    ...toPlanSummaryPayload(plan),
    origin: plan.origin
      ? {
          kind: plan.origin.kind,
          reference: plan.origin.reference,
          url: plan.origin.url ?? null,
          title: plan.origin.title ?? null,
        }
      : null,
    prd_file: typeof plan.extra.prd_file === "string" ? plan.extra.prd_file : null,
    agent_instructions: instructionsPayload(plan.agentInstructions),
    verify: [...(plan.verify ?? [])],
    setup: plan.setup ?? null,
    max_attempts: plan.maxAttempts ?? null,
    agent: plan.agent ?? null,
    model: plan.model ?? null,
    fallback_agents: [...(plan.fallbackAgents ?? [])],
  };
}

/**
 * One audit event as the read API sends it. Its texts are redacted again on the way out
 * ({@link redactJson}), so events stored before a secret's shape was known are served without it.
 */
export function toEventPayload(event: EventRecord, secrets: readonly string[] = []): EventPayload {
  return {
    id: event.id,
    plan_id: event.planId,
    task_id: event.taskId ?? null,
    event_type: event.eventType,
    payload: redactJson(event.payload, secrets),
    detail: event.detail === undefined || event.detail === null ? null : redactJson(event.detail, secrets),
    created_at: event.createdAt.toISOString(),
  };
}

/** A worker as `GET /api/v1/workers` sends it: ISO 8601 times; no agents or tags before its first claim. */
export function toWorkerPayload(worker: WorkerRecord): WorkerPayload {
  return {
    worker_id: worker.workerId,
    hostname: worker.hostname,
    status: worker.status,
    last_heartbeat: worker.lastHeartbeat.toISOString(),
    registered_at: worker.registeredAt.toISOString(),
    agents: [...(worker.capabilities?.agents ?? [])],
    tags: [...(worker.capabilities?.tags ?? [])],
  };
}

/** The pause state as the API says it: `{paused, paused_at, reason}` (ISO 8601 UTC, or nulls). */
export function toPausePayload(pause: WorkersPause | undefined): WorkersPauseResponse {
  return {
    paused: pause !== undefined,
    paused_at: pause?.pausedAt.toISOString() ?? null,
    reason: pause?.reason ?? null,
  };
}
