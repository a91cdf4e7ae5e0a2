import {
  type AgentInstructions,
  type AttemptFailure,
  type AttemptProgress,
  type ClaimedTask,
  type DependencyWork,
  type DependencyWorkPayload,
  effectiveMaxAttempts,
  formatUsd,
  type JsonObject,
  type JsonValue,
  type PlanPayload,
  type PlanRecord,
  type TaskPayload,
  type TaskRecord,
} from "@whilly/core";

/**
 * A stored task as protocol v1 sends it (snake_case, ISO timestamps). `max_attempts` is the task's
 * limit after defaults (its own, else its plan's, else 3), sent when the task has its own or `plan`
 * (the task's plan, as the caller read it) is given; `previous_failure` is the last failed attempt's;
 * `branch` and `commit` are a DONE task's work (`null` when none was reported); `claimed_at`, `spent_usd`
 * (over every attempt) and `progress` (the running attempt's last heartbeat) let a dashboard show a
 * task's elapsed time, cost and step without replaying its events.
 */
export function toTaskPayload(task: TaskRecord, plan?: PlanRecord | undefined): TaskPayload {
  const known = task.maxAttempts !== undefined || plan !== undefined;
  return {
    plan_id: task.planId,
    id: task.id,
    status: task.status,
    priority: task.priority,
    description: task.description,
    dependencies: [...task.dependencies],
    key_files: [...task.keyFiles],
    acceptance_criteria: [...task.acceptanceCriteria],
    test_steps: [...task.testSteps],
    prd_requirement: task.prdRequirement,
    version: task.version,
    attempts: task.attempts,
    claimed_by: task.claimedBy ?? null,
    lease_expires_at: task.leaseExpiresAt?.toISOString() ?? null,
    claimed_at: task.claimedAt?.toISOString() ?? null,
    spent_usd: formatUsd(task.spentMicroUsd),
    progress: task.progress === undefined ? null : progressPayload(task.progress),
    ...(known ? { max_attempts: effectiveMaxAttempts(task.maxAttempts, plan?.maxAttempts) } : {}),
    not_before: task.notBefore?.toISOString() ?? null,
    previous_failure: task.lastFailure === undefined ? null : failurePayload(task.lastFailure),
    verification: task.verification ?? null,
    branch: task.work?.branch ?? null,
    commit: task.work?.commit ?? null,
    agent: task.agent ?? null,
    model: task.model ?? null,
    required_tags: [...(task.requiredTags ?? [])],
  };
}

/**
 * A claimed task as the claim's reply sends it: {@link toTaskPayload} with `agent` and `model` the
 * attempt's, as the claim chose them for the claiming worker (`chooseAgent`).
 */
export function toClaimedTaskPayload(task: ClaimedTask, plan: PlanRecord | undefined): TaskPayload {
  return { ...toTaskPayload(task, plan), agent: task.choice.agent, model: task.choice.model ?? null };
}

/** A claim's `dependency_work`: the claimed task's dependencies' work, in the order the store gave. */
export function toDependencyWorkPayload(work: readonly DependencyWork[]): DependencyWorkPayload[] {
  return work.map((item) => ({ task_id: item.taskId, branch: item.branch, commit: item.commit }));
}

/** A heartbeat's progress as JSON, its absent fields left out. */
function progressPayload(progress: AttemptProgress): NonNullable<TaskPayload["progress"]> {
  return {
    ...(progress.turns === undefined ? {} : { turns: progress.turns }),
    ...(progress.last_tool === undefined ? {} : { last_tool: progress.last_tool }),
    ...(progress.phase === undefined ? {} : { phase: progress.phase }),
  };
}

/** A failure as JSON, its absent fields left out. */
function failurePayload(failure: AttemptFailure): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(failure)) {
    if (value !== undefined)
      out[key] = Array.isArray(value) ? [...(value as string[])] : (value as JsonValue);
  }
  return out;
}

/** The plan context a claim carries, with its checks and setup command. */
export function toPlanPayload(plan: PlanRecord): PlanPayload {
  return {
    id: plan.id,
    name: plan.name,
    agent_instructions: instructionsPayload(plan.agentInstructions),
    verify: [...(plan.verify ?? [])],
    setup: plan.setup ?? null,
    agent: plan.agent ?? null,
    model: plan.model ?? null,
    fallback_agents: [...(plan.fallbackAgents ?? [])],
  };
}

/**
 * Every instruction key with its lines. `before` and `after` are always present, as protocol-v1
 * workers that know only those two require them; they drop the keys they do not know.
 */
export function instructionsPayload(lines: AgentInstructions): Record<string, string[]> {
  return Object.fromEntries([
    ["before", []],
    ["after", []],
    ...Object.entries(lines).map(([key, list]): [string, string[]] => [key, [...list]]),
  ]);
}
