import { compareIds } from "../dag/compare.js";
import type { JsonObject, PlanSpec, TaskSpec } from "../model.js";
import { canonicalJson } from "./canonical-json.js";
import { joinInstructions } from "./instructions.js";
import { originToJson } from "./origin.js";
import { PLAN_FIELDS } from "./parse-plan.js";
import { TASK_FIELDS } from "./parse-task.js";

/**
 * The plan file whilly writes for `plan export` (docs/plan-format.md, "Export"): top-level `plan_id`,
 * `project`, `tasks`, `agent_instructions` when it has lines or kept values (every key, a one-line
 * string written as a list), `verify` (a list), `setup`, `max_attempts`, `agent`, `model`,
 * `fallback_agents`, `github_issue_ref` and `origin` when set, and the plan's
 * extra fields; every task with its ten always-written fields (`status` upper case, `priority` lower
 * case, current `version`), `max_attempts`, `agent`, `model` and `required_tags` when set, plus its
 * extra fields; tasks by id, keys sorted
 * at every level, two-space indent, trailing newline. Parsing the result and exporting again gives
 * the same bytes.
 * @param tasks specs or stored records (only spec fields are written).
 */
export function exportPlan(
  plan: Pick<
    PlanSpec,
    | "id"
    | "name"
    | "agentInstructions"
    | "keptInstructions"
    | "verify"
    | "setup"
    | "maxAttempts"
    | "agent"
    | "model"
    | "fallbackAgents"
    | "githubIssueRef"
    | "origin"
    | "extra"
  >,
  tasks: readonly TaskSpec[],
): string {
  const document: JsonObject = {
    ...withoutKeys(plan.extra, PLAN_FIELDS),
    plan_id: plan.id,
    project: plan.name,
    tasks: [...tasks].sort((a, b) => compareIds(a.id, b.id)).map(taskToJson),
  };
  const instructions = joinInstructions(plan.agentInstructions, plan.keptInstructions);
  if (Object.keys(instructions).length > 0) document.agent_instructions = instructions;
  if (plan.verify && plan.verify.length > 0) document.verify = [...plan.verify];
  if (plan.setup !== undefined) document.setup = plan.setup;
  if (plan.maxAttempts !== undefined) document.max_attempts = plan.maxAttempts;
  if (plan.agent !== undefined) document.agent = plan.agent;
  if (plan.model !== undefined) document.model = plan.model;
  if (plan.fallbackAgents && plan.fallbackAgents.length > 0)
    document.fallback_agents = [...plan.fallbackAgents];
  if (plan.githubIssueRef !== undefined) document.github_issue_ref = plan.githubIssueRef;
  if (plan.origin !== undefined) document.origin = originToJson(plan.origin);
  return `${canonicalJson(document)}\n`;
}

function taskToJson(task: TaskSpec): JsonObject {
  return {
    ...withoutKeys(task.extra, TASK_FIELDS),
    id: task.id,
    status: task.status,
    dependencies: [...task.dependencies],
    key_files: [...task.keyFiles],
    priority: task.priority,
    description: task.description,
    acceptance_criteria: [...task.acceptanceCriteria],
    test_steps: [...task.testSteps],
    prd_requirement: task.prdRequirement,
    ...(task.maxAttempts === undefined ? {} : { max_attempts: task.maxAttempts }),
    ...(task.agent === undefined ? {} : { agent: task.agent }),
    ...(task.model === undefined ? {} : { model: task.model }),
    ...(task.requiredTags && task.requiredTags.length > 0 ? { required_tags: [...task.requiredTags] } : {}),
    version: task.version,
  };
}

/** `extra` minus any key whilly writes itself, so a known field can never be shadowed. */
function withoutKeys(extra: JsonObject, known: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(extra).filter(([key]) => !known.includes(key)));
}
