import type { AgentInstructions, PlanPayload, PlanRecord, TaskPayload, TaskRecord } from "@whilly/core";

/** A stored task as protocol v1 sends it (snake_case, ISO timestamps). */
export function toTaskPayload(task: TaskRecord): TaskPayload {
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
  };
}

/** The plan context a claim carries. */
export function toPlanPayload(plan: PlanRecord): PlanPayload {
  return {
    id: plan.id,
    name: plan.name,
    agent_instructions: instructionsPayload(plan.agentInstructions),
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
