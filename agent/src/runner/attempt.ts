import {
  AGENT_UNAVAILABLE_HINTS,
  type AgentOutcome,
  type AttemptFailure,
  agentOutcomeDetail,
  buildFollowUpPrompt,
  buildPrompt,
  effectiveMaxAttempts,
  type PlanPayload,
  type PromptAttempt,
  type PromptPlan,
  type TaskPayload,
} from "@whilly/core";
import type { AgentAttempt, RunAgent, RunAttempt } from "../worker/types.js";
import { type AgentRunResult, runClaude } from "./run-claude.js";
import type { ClaudeSettings } from "./settings.js";

/** Options of {@link createClaudeAgent}. */
export type ClaudeAgentOptions = {
  readonly settings: ClaudeSettings;
  /** Per-task limit, ms. */
  readonly timeoutMs: number;
  /** No event from the agent for this long ends the attempt `stalled`, ms; default 10 minutes. */
  readonly stallTimeoutMs?: number | undefined;
  /** The least time between two progress reports, ms; default 1000. */
  readonly activityIntervalMs?: number | undefined;
  /** The agent's environment (usually the worker's `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Secrets to hide from the outcome besides those of `env` (see `RunClaudeInput.secrets`). */
  readonly secrets?: readonly string[];
  /** Where running attempts are recorded (see `RunClaudeInput.stateDir`); none when undefined. */
  readonly stateDir?: string | undefined;
};

/** Options of {@link createClaudeAttempt}: {@link ClaudeAgentOptions} and the one directory it works in. */
export type ClaudeAttemptOptions = ClaudeAgentOptions & {
  /** Where the agent works on every task. */
  readonly cwd: string;
};

/**
 * Binds Claude Code to one directory per call ({@link RunAgent}): each call builds the task's prompt
 * (docs/agent.md; a claim without plan context gets a plan named by its id) with `Attempt: N of M` and,
 * after a failed attempt, what went wrong; with `resumeSessionId` it continues that session
 * (`claude --resume`) with a short follow-up prompt instead (`detail.resumed: true`), or, when Claude
 * Code no longer has that session, starts over with the full prompt (`detail.resumed: false`). It runs
 * the CLI with {@link runClaude} and reports the classified outcome: a provider limit as `limited`, the
 * session id, turns and the last tool through `onActivity`. Never throws for the agent's failures.
 */
export function createClaudeAgent(options: ClaudeAgentOptions): RunAgent {
  return async ({ task, plan, cwd, signal, resumeSessionId, previousFailure, onActivity }) => {
    const attempt = promptAttempt(task);
    const fresh = () =>
      buildPrompt({ plan: promptPlan(task, plan), task: promptTask(task), attempt, previousFailure });
    const run = (prompt: string, resume: string | undefined) =>
      runClaude({
        prompt,
        cwd,
        timeoutMs: options.timeoutMs,
        stallTimeoutMs: options.stallTimeoutMs,
        activityIntervalMs: options.activityIntervalMs,
        settings: options.settings,
        env: options.env,
        signal,
        resumeSessionId: resume,
        onActivity,
        ...(options.secrets ? { secrets: options.secrets } : {}),
        stateDir: options.stateDir,
        ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      });
    if (resumeSessionId === undefined || previousFailure === undefined) {
      return agentAttempt(await run(fresh(), undefined));
    }
    const resumed = await run(
      buildFollowUpPrompt({ taskId: task.id, attempt, previousFailure }),
      resumeSessionId,
    );
    // A session Claude Code no longer has (another config directory, cleaned up) is no reason to fail:
    // the attempt starts over with the full prompt, which tells it what went wrong too.
    if (!sessionMissing(resumed.outcome) || signal.aborted) return withResume(agentAttempt(resumed), true);
    return withResume(agentAttempt(await run(fresh(), undefined)), false);
  };
}

/** Claude Code's answer to `--resume` of a session it does not have: nothing ran, nothing was spent. */
const SESSION_MISSING = /no conversation found/i;

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

/**
 * The bare binding: every task in one fixed directory (`options.cwd`), without whilly's checks or
 * worktrees (`whilly-worker` and `whilly run` use `createTaskAttempt`). A thin wrapper of
 * {@link createClaudeAgent}; the claim's `previous_failure` goes into the prompt, and a session is never
 * resumed.
 */
export function createClaudeAttempt(options: ClaudeAttemptOptions): RunAttempt {
  const agent = createClaudeAgent(options);
  return ({ task, plan, signal, onActivity }) =>
    agent({ task, plan, cwd: options.cwd, signal, previousFailure: previousFailureOf(task), onActivity });
}

/** The {@link AgentAttempt} of one run. */
export function agentAttempt(result: AgentRunResult): AgentAttempt {
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
    return {
      ...attempt,
      unavailable: { message: outcome.message, hint: AGENT_UNAVAILABLE_HINTS[outcome.unavailable] },
    };
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

/**
 * The claim's `previous_failure` as an {@link AttemptFailure}, or `undefined` when it has none or it
 * lacks the two fields a prompt needs (a number and a reason).
 */
export function previousFailureOf(task: TaskPayload): AttemptFailure | undefined {
  const raw = task.previous_failure;
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw.attempt !== "number" || typeof raw.reason !== "string") return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const steps = Array.isArray(raw.manual_steps) ? raw.manual_steps.filter((s) => typeof s === "string") : [];
  return {
    attempt: raw.attempt,
    reason: raw.reason,
    step: text(raw.step),
    exit_code: typeof raw.exit_code === "number" ? raw.exit_code : undefined,
    output_tail: text(raw.output_tail),
    session_id: text(raw.session_id),
    worker_id: text(raw.worker_id),
    ...(steps.length > 0 ? { manual_steps: steps as string[] } : {}),
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
