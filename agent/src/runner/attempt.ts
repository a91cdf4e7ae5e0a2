import type { AttemptFailure, TaskPayload } from "@whilly/core";
import { createClaudeAdapter } from "../agents/claude/index.js";
import { createAdapterAgent } from "../agents/task-agent.js";
import type { RunAgent, RunAttempt } from "../worker/types.js";
import type { ClaudeSettings } from "./settings.js";

export { agentAttempt } from "../agents/task-agent.js";

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
 * the CLI through the Claude adapter ({@link createAdapterAgent}) and reports the classified outcome: a
 * provider limit as `limited`, the session id, turns and the last tool through `onActivity`. Never
 * throws for the agent's failures.
 */
export function createClaudeAgent(options: ClaudeAgentOptions): RunAgent {
  const adapter = createClaudeAdapter(options.settings);
  const pick = { adapter, model: options.settings.model };
  return createAdapterAgent({ ...options, killGraceMs: options.settings.killGraceMs }, () => pick);
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
