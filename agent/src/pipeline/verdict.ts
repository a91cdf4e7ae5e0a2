import {
  type AttemptFailure,
  type JsonObject,
  type Verification,
  WHILLY_FAILURE_REASONS,
} from "@whilly/core";
import type { ChecksResult } from "../verify/run-checks.js";
import type { AgentAttempt } from "../worker/types.js";

/** An attempt's failure as the worker reports it (the store adds `attempt` and `worker_id`). */
export type ReportedFailure = Omit<AttemptFailure, "attempt" | "worker_id">;

/** What an attempt came to after the checks. */
export type Verdict =
  | { readonly ok: true; readonly verification: Verification }
  | { readonly ok: false; readonly reason: string; readonly failure: ReportedFailure };

/**
 * Agent endings that cut its work short: the per-task limit, the stall timeout, a signal, a failed
 * start. Checks that pass on half-done work prove little, so these fail the attempt whatever the
 * checks say (docs/verification.md).
 */
export const CUT_SHORT_REASONS: ReadonlySet<string> = new Set([
  "timeout",
  "stalled",
  "killed",
  "spawn_failed",
]);

/**
 * whilly's rule for DONE (docs/verification.md): an agent cut short ({@link CUT_SHORT_REASONS}) fails
 * with its own reason; otherwise, when a check ran, the checks decide (every one that ran passed →
 * `passed`; one failed → `verification_failed` with its step, exit code and output tail), whatever the
 * agent said (its marker, a turn limit, a denied tool); when none was runnable, the agent's word
 * decides and a DONE is `unverified`.
 */
export function decide(agent: AgentAttempt, checks: ChecksResult): Verdict {
  const manual = checks.manualSteps.length > 0 ? { manual_steps: checks.manualSteps } : {};
  const session = sessionOf(agent);
  const cutShort = !agent.ok && CUT_SHORT_REASONS.has(agent.reason ?? "");
  if (checks.status === "passed" && !cutShort) return { ok: true, verification: "passed" };
  if (checks.status === "failed" && checks.failing !== undefined && !cutShort) {
    const reason = WHILLY_FAILURE_REASONS.verificationFailed;
    const { step, exit_code, output_tail } = checks.failing;
    return { ok: false, reason, failure: { reason, step, exit_code, output_tail, ...session, ...manual } };
  }
  if (agent.ok) return { ok: true, verification: "unverified" };
  const reason = agent.reason ?? "failed";
  const tail = agent.detail.output_tail;
  const failure: ReportedFailure = agent.failure ?? {
    reason,
    ...(typeof tail === "string" ? { output_tail: tail } : {}),
  };
  return { ok: false, reason, failure: { ...failure, ...session, ...manual } };
}

/** The failure fields of a check or git step that failed after the agent ran. */
export function stepFailure(
  reason: string,
  step: string,
  exitCode: number | null,
  outputTail: string,
  agent: AgentAttempt | undefined,
): ReportedFailure {
  return {
    reason,
    step,
    exit_code: exitCode,
    output_tail: outputTail,
    ...sessionOf(agent),
  };
}

/** The agent's session for the next attempt: its id and the agent it belongs to (from the detail). */
function sessionOf(agent: AgentAttempt | undefined): { session_id?: string; agent?: string } {
  if (agent?.sessionId === undefined) return {};
  const name = agent.detail.agent;
  return { session_id: agent.sessionId, ...(typeof name === "string" ? { agent: name } : {}) };
}

/**
 * The attempt's detail: the agent's, with whilly's verdict (`ok`, `reason`, `message`) over it and the
 * agent's own kept as `agent_claimed` and `agent_reason`.
 */
export function verdictDetail(
  agent: AgentAttempt | undefined,
  ok: boolean,
  reason: string | undefined,
  extra: JsonObject,
): JsonObject {
  const detail: JsonObject = { ...(agent?.detail ?? {}) };
  if (ok || reason !== agent?.reason) delete detail.message;
  Object.assign(detail, extra, { ok });
  if (agent !== undefined) {
    detail.agent_claimed = agent.ok;
    detail.agent_reason = agent.reason ?? null;
  }
  if (reason === undefined) delete detail.reason;
  else detail.reason = reason;
  return detail;
}
