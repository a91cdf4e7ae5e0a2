import type { PlanPayload, PlanRecord, TaskPayload, TaskRecord } from "@whilly/core";

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
    agent_instructions: {
      before: [...plan.agentInstructions.before],
      after: [...plan.agentInstructions.after],
    },
  };
}
