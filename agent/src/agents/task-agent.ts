import {
  AGENT_UNAVAILABLE_HINTS,
  type AgentOutcome,
  type AgentUnavailableKind,
  agentOutcomeDetail,
  buildFollowUpPrompt,
  buildPrompt,
  DEFAULT_AGENT,
  effectiveMaxAttempts,
  type PlanPayload,
  type PromptAttempt,
  type PromptPlan,
  type TaskPayload,
} from "@whilly/core";
import { type AgentRunResult, DEFAULT_STALL_TIMEOUT_MS, runAgent } from "../runner/run-agent.js";
import type { AgentAttempt, RunAgent } from "../worker/types.js";
import type { AgentAdapter } from "./types.js";

/** How a {@link RunAgent} runs its agents. Durations are ms. */
export type TaskAgentOptions = {
  /** Per-task limit. */
  readonly timeoutMs: number;
  /** No event from the agent for this long ends the attempt `stalled`; default 10 minutes. */
  readonly stallTimeoutMs?: number | undefined;
  /** The least time between two progress reports; default 1000. */
  readonly activityIntervalMs?: number | undefined;
  /** Time between SIGTERM and SIGKILL when an agent is stopped. */
  readonly killGraceMs: number;
  /** The agent's environment (usually the worker's `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onOutput?: ((chunk: string, stream: "stdout" | "stderr") => void) | undefined;
  /** Secrets to hide from the outcome besides those of the agent's environment. */
  readonly secrets?: readonly string[] | undefined;
  /** Where running attempts are recorded; none when undefined. */
  readonly stateDir?: string | undefined;
};

/** The adapter and model one attempt runs. */
export type AgentPick = { readonly adapter: AgentAdapter; readonly model: string };

/**
 * A {@link RunAgent} over adapters: for each call `pick` names the adapter and model, the task's prompt
 * is built (`Attempt: N of M`, what went wrong before), and the agent runs once through `runAgent`.
 * With `resumeSessionId`, an adapter that resumes and the previous attempt on the same agent, the
 * session is continued with a short follow-up prompt (`detail.resumed: true`), or, when the agent no
 * longer has it, started over with the full prompt (`detail.resumed: false`). The attempt's `detail`
 * names its `agent` and `model`. Never throws for the agent's failures.
 */
export function createAdapterAgent(
  options: TaskAgentOptions,
  pick: (task: TaskPayload, plan: PlanPayload | null) => AgentPick,
): RunAgent {
  return async ({ task, plan, cwd, signal, resumeSessionId, previousFailure, onActivity }) => {
    const { adapter, model } = pick(task, plan);
    const attempt = promptAttempt(task);
    const fresh = () =>
      buildPrompt({ plan: promptPlan(task, plan), task: promptTask(task), attempt, previousFailure });
    const run = (prompt: string, resume: string | undefined) =>
      runAgent({
        adapter,
        invocation: { prompt, model, cwd, taskId: task.id, resumeSessionId: resume, mode: "task" },
        timeoutMs: options.timeoutMs,
        killGraceMs: options.killGraceMs,
        stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
        activityIntervalMs: options.activityIntervalMs,
        env: options.env,
        signal,
        onActivity,
        onOutput: options.onOutput,
        secrets: options.secrets,
        stateDir: options.stateDir,
      });
    const report = (result: AgentRunResult) =>
      withChoice(agentAttempt(result, adapter.unavailableHints), adapter.name, model);
    const sameAgent = (previousFailure?.agent ?? DEFAULT_AGENT) === adapter.name;
    if (resumeSessionId === undefined || previousFailure === undefined || !adapter.resumes || !sameAgent) {
      return report(await run(fresh(), undefined));
    }
    const resumed = await run(
      buildFollowUpPrompt({ taskId: task.id, attempt, previousFailure }),
      resumeSessionId,
    );
    // A session the agent no longer has (another config directory, cleaned up) is no reason to fail:
    // the attempt starts over with the full prompt, which tells it what went wrong too.
    if (!sessionMissing(resumed.outcome) || signal.aborted) return withResume(report(resumed), true);
    return withResume(report(await run(fresh(), undefined)), false);
  };
}

/** An agent's answer to a resume of a session it does not have: nothing ran, nothing was spent. */
const SESSION_MISSING = /no conversation found|session not found|no session found/i;

function sessionMissing(outcome: AgentOutcome): boolean {
  return (
    outcome.reason === "error_subtype" &&
    outcome.numTurns === 0 &&
    outcome.errors.some((e) => SESSION_MISSING.test(e))
  );
}

/** Records in the detail whether the asked-for session was continued (`resumed`) or not found. */
function withResume(attempt: AgentAttempt, resumed: boolean): AgentAttempt {
  return { ...attempt, detail: { ...attempt.detail, resumed } };
}

/** The attempt's agent and model in its detail (and so in its COMPLETE / FAIL event), and its failure. */
function withChoice(attempt: AgentAttempt, agent: string, model: string): AgentAttempt {
  const detail = { ...attempt.detail, agent, model };
  const failure = attempt.failure === undefined ? {} : { failure: { ...attempt.failure, agent } };
  return { ...attempt, detail, ...failure };
}

/**
 * The {@link AgentAttempt} of one run.
 * @param hints what people are told when the agent cannot run here (the adapter's `unavailableHints`).
 */
export function agentAttempt(
  result: AgentRunResult,
  hints: Readonly<Record<AgentUnavailableKind, string>> = AGENT_UNAVAILABLE_HINTS,
): AgentAttempt {
  const { outcome } = result;
  const attempt: AgentAttempt = {
    ok: outcome.ok,
    reason: outcome.reason,
    costMicroUsd: outcome.costMicroUsd,
    aborted: result.aborted,
    detail: agentOutcomeDetail(outcome),
    sessionId: result.sessionId,
  };
  if (outcome.unavailable !== undefined) {
    return { ...attempt, unavailable: { message: outcome.message, hint: hints[outcome.unavailable] } };
  }
  if (outcome.limited !== undefined) {
    return { ...attempt, limited: { message: outcome.limited.message, until: outcome.limited.until } };
  }
  if (outcome.ok || result.aborted) return attempt;
  return { ...attempt, failure: agentFailure(outcome) };
}

/** What the next attempt is told of a failed agent run. */
function agentFailure(outcome: AgentOutcome): NonNullable<AgentAttempt["failure"]> {
  return {
    reason: outcome.reason ?? "failed",
    exit_code: outcome.exitCode,
    ...(outcome.outputTail === "" ? {} : { output_tail: outcome.outputTail }),
    ...(outcome.sessionId === null ? {} : { session_id: outcome.sessionId }),
  };
}

/** `Attempt: N of M` from the claim: `attempts` counts this one once started; `max_attempts` after defaults. */
function promptAttempt(task: TaskPayload): PromptAttempt {
  const max = effectiveMaxAttempts(task.max_attempts, undefined);
  return { number: Math.max(1, task.attempts), max: Math.max(max, task.attempts, 1) };
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
