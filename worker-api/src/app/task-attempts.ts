import { EVENT_TYPES, type EventRecord, redactJson, releaseRefundsAttempt } from "@whilly/core";

/** The audit events an attempt is read from: its claim, its end, and an operator's reset of the count. */
export const ATTEMPT_EVENT_TYPES = [
  EVENT_TYPES.claim,
  EVENT_TYPES.complete,
  EVENT_TYPES.fail,
  EVENT_TYPES.release,
  EVENT_TYPES.reset,
] as const;

/**
 * How an attempt ended: `done` (COMPLETE), `failed` (FAIL), `released` (RELEASE: back to PENDING
 * without a verdict), `running` (its claim is the task's latest and nothing ended it yet), or
 * `unknown` (another claim followed with no end recorded, e.g. the end fell outside the events read).
 */
export type AttemptOutcome = "done" | "failed" | "released" | "running" | "unknown";

/**
 * One attempt as the task detail route serves it. `attempt` is the task's attempt number the claim
 * ran as (a release that refunds the attempt, and an operator's reset, give the number back);
 * `cost_usd` is the six-decimal USD string its finish reported (`null` for a release or while it runs);
 * times are ISO 8601 and `duration_ms` is from the claim to the end.
 */
export type AttemptPayload = {
  attempt: number;
  worker_id: string | null;
  agent: string | null;
  model: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  outcome: AttemptOutcome;
  reason: string | null;
  cost_usd: string | null;
};

/**
 * A task's attempts, oldest first, read from its `CLAIM`, `COMPLETE`, `FAIL`, `RELEASE` and `RESET`
 * events in log order (no table keeps attempts as such). Texts are redacted with `secrets`.
 */
export function taskAttempts(
  events: readonly EventRecord[],
  secrets: readonly string[] = [],
): AttemptPayload[] {
  const attempts: AttemptPayload[] = [];
  let open: AttemptPayload | undefined;
  let counted = 0;
  for (const event of events) {
    if (event.eventType === EVENT_TYPES.reset) {
      counted = 0;
    } else if (event.eventType === EVENT_TYPES.claim) {
      if (open !== undefined) open.outcome = "unknown";
      counted += 1;
      open = openAttempt(event, counted);
      attempts.push(open);
    } else if (open !== undefined) {
      if (closeAttempt(open, event, secrets)) counted -= 1;
      open = undefined;
    }
  }
  return attempts;
}

function openAttempt(claim: EventRecord, attempt: number): AttemptPayload {
  return {
    attempt,
    worker_id: text(claim.payload.worker_id),
    agent: text(claim.detail?.agent),
    model: text(claim.detail?.model),
    started_at: claim.createdAt.toISOString(),
    finished_at: null,
    duration_ms: null,
    outcome: "running",
    reason: null,
    cost_usd: null,
  };
}

/** Ends `open` with its `COMPLETE`, `FAIL` or `RELEASE`. @returns whether the end refunds the attempt. */
function closeAttempt(open: AttemptPayload, end: EventRecord, secrets: readonly string[]): boolean {
  const reason = text(end.payload.reason);
  open.finished_at = end.createdAt.toISOString();
  open.duration_ms = end.createdAt.getTime() - Date.parse(open.started_at);
  open.reason = reason === null ? null : redactJson(reason, secrets);
  if (end.eventType === EVENT_TYPES.release) {
    open.outcome = "released";
    return reason !== null && releaseRefundsAttempt(reason);
  }
  open.outcome = end.eventType === EVENT_TYPES.complete ? "done" : "failed";
  open.cost_usd = text(end.payload.cost_usd);
  return false;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
