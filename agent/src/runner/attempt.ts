import {
  AGENT_UNAVAILABLE_HINTS,
  agentOutcomeDetail,
  buildPrompt,
  type PlanPayload,
  type PromptPlan,
  type TaskPayload,
} from "@whilly/core";
import type { RunAttempt } from "../worker/types.js";
import { runClaude } from "./run-claude.js";
import type { ClaudeSettings } from "./settings.js";

/** Options of {@link createClaudeAttempt}. */
export type ClaudeAttemptOptions = {
  readonly settings: ClaudeSettings;
  /** Where the agent works on every task. */
  readonly cwd: string;
  /** Per-task limit, ms. */
  readonly timeoutMs: number;
  /** The agent's environment (usually the worker's `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Secrets to hide from the outcome besides those of `env` (see `RunClaudeInput.secrets`). */
  readonly secrets?: readonly string[];
  /** Where running attempts are recorded (see `RunClaudeInput.stateDir`); none when undefined. */
  readonly stateDir?: string | undefined;
};

/**
 * Binds Claude Code to the worker loop: each call builds the task's prompt (docs/agent.md; a claim
 * without plan context gets a plan named by its id), runs the CLI once with {@link runClaude}, and reports
 * the classified outcome. Never throws for the agent's failures.
 */
export function createClaudeAttempt(options: ClaudeAttemptOptions): RunAttempt {
  return async ({ task, plan, signal }) => {
    const prompt = buildPrompt({ plan: promptPlan(task, plan), task: promptTask(task) });
    const result = await runClaude({
      prompt,
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      settings: options.settings,
      env: options.env,
      signal,
      ...(options.secrets ? { secrets: options.secrets } : {}),
      stateDir: options.stateDir,
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    });
    const { outcome } = result;
    return {
      ok: outcome.ok,
      reason: outcome.reason,
      costMicroUsd: outcome.costMicroUsd,
      aborted: result.aborted,
      detail: agentOutcomeDetail(outcome),
      ...(outcome.unavailable === undefined
        ? {}
        : { unavailable: { message: outcome.message, hint: AGENT_UNAVAILABLE_HINTS[outcome.unavailable] } }),
    };
  };
}

function promptPlan(task: TaskPayload, plan: PlanPayload | null): PromptPlan {
  if (plan === null) return { id: task.plan_id, name: task.plan_id, agentInstructions: {} };
  return { id: plan.id, name: plan.name, agentInstructions: plan.agent_instructions };
}

function promptTask(task: TaskPayload) {
  return {
    id: task.id,
    priority: task.priority,
    prdRequirement: task.prd_requirement,
    description: task.description,
    dependencies: task.dependencies,
    acceptanceCriteria: task.acceptance_criteria,
    testSteps: task.test_steps,
    keyFiles: task.key_files,
  };
}
