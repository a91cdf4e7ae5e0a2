import {
  type JsonObject,
  type Verification,
  WHILLY_FAILURE_REASONS,
  WORKSPACE_UNAVAILABLE_REASON,
} from "@whilly/core";
import type { CheckRecord, ChecksResult } from "../verify/run-checks.js";
import type { AgentAttempt } from "../worker/types.js";
import { type ReportedFailure, verdictDetail } from "./verdict.js";

/** How an attempt ended once whilly judged it, with the detail fields it adds. */
export type Outcome =
  | { readonly ok: true; readonly verification: Verification; readonly extra: JsonObject }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly failure: ReportedFailure;
      readonly extra: JsonObject;
    };

/** The attempt the loop reports: the agent's spend and session, whilly's verdict. */
export function attemptOf(agent: AgentAttempt | undefined, outcome: Outcome): AgentAttempt {
  const reason = outcome.ok ? undefined : outcome.reason;
  const extra = outcome.ok ? { ...outcome.extra, verification: outcome.verification } : outcome.extra;
  return {
    ok: outcome.ok,
    reason,
    costMicroUsd: agent?.costMicroUsd ?? 0,
    aborted: false,
    detail: verdictDetail(agent, outcome.ok, reason, extra),
    ...(outcome.ok ? { verification: outcome.verification } : { failure: outcome.failure }),
    ...(agent?.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
  };
}

/** A failed {@link Outcome}; whilly's own reasons get a `message` saying what failed, for people. */
export function failed(failure: ReportedFailure, extra: JsonObject = {}): Outcome {
  const message = failureMessage(failure);
  return {
    ok: false,
    reason: failure.reason,
    failure,
    extra: message === undefined ? extra : { message, ...extra },
  };
}

/** One line on a failure whilly decided; `undefined` for the agent's own reasons, which carry the agent's. */
export function failureMessage(failure: ReportedFailure): string | undefined {
  const { verificationFailed, integrationFailed, mergeConflict, setupFailed } = WHILLY_FAILURE_REASONS;
  const exit =
    failure.exit_code === null || failure.exit_code === undefined
      ? "no exit code: timed out or stopped"
      : `exit ${failure.exit_code}`;
  switch (failure.reason) {
    case verificationFailed:
      return `check \`${failure.step}\` failed (${exit})`;
    case integrationFailed:
      return `\`${failure.step}\` failed on merging into the integration branch (${exit})`;
    case mergeConflict:
      return `merging into the integration branch conflicts: ${(failure.output_tail ?? "").split("\n").slice(1).join(", ")}`;
    case setupFailed:
      return `setup \`${failure.step}\` failed (${exit})`;
    default:
      return undefined;
  }
}

/** An attempt the worker's shutdown stopped: the loop hands the task back, unjudged. */
export function stopped(agent: AgentAttempt | undefined): AgentAttempt {
  return { ...(agent ?? { ok: false, reason: "aborted", costMicroUsd: 0, detail: {} }), aborted: true };
}

/**
 * An attempt the machine's git failed (a dependency's work not to be had, a push refused): no verdict,
 * what the agent cost kept; the loop hands the task back with the attempt refunded.
 */
export function faulted(
  agent: AgentAttempt | undefined,
  fault: NonNullable<AgentAttempt["fault"]>,
  detail: JsonObject,
): AgentAttempt {
  const reason = WORKSPACE_UNAVAILABLE_REASON;
  return {
    ok: false,
    reason,
    costMicroUsd: agent?.costMicroUsd ?? 0,
    aborted: false,
    detail: { ...agent?.detail, ...detail, reason, message: fault.message },
    fault,
    ...(agent?.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
  };
}

/**
 * An attempt whose task went to another worker before its work was published: no verdict, nothing
 * published, what the agent cost kept; the loop drops it as lost.
 */
export function leaseLost(agent: AgentAttempt, message: string, detail: JsonObject): AgentAttempt {
  const reason = "lease_lost";
  return {
    ok: false,
    reason,
    costMicroUsd: agent.costMicroUsd,
    aborted: false,
    detail: { ...agent.detail, ...detail, reason, message },
    leaseLost: { message },
    ...(agent.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
  };
}

/** `detail.checks` (and `manual_steps`): every check with its kind, exit code and time. */
export function checksDetail(checks: ChecksResult): JsonObject {
  return {
    checks: checks.checks.map(checkJson),
    ...(checks.manualSteps.length > 0 ? { manual_steps: [...checks.manualSteps] } : {}),
  };
}

function checkJson(check: CheckRecord): JsonObject {
  const json: JsonObject = {
    step: check.step,
    kind: check.kind,
    source: check.source,
    exit_code: check.exit_code,
    ms: check.ms,
  };
  if (check.manual_reason !== undefined) json.manual_reason = check.manual_reason;
  if (check.timed_out) json.timed_out = true;
  return json;
}

/** An error's message, for a failure's output tail. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
