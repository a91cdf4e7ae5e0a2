import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_BACKOFF_MAX_MS,
  DEFAULT_RETRY_BACKOFF_MS,
  type FailureReport,
  InvalidInput,
  type JsonObject,
  type RetryBackoff,
} from "@whilly/core";
import { plans } from "@whilly/schema";
import { type SQL, sql } from "drizzle-orm";
import { storableJson } from "../text.js";

/** The backoff when the caller names none: 30 s doubling to 10 min. */
export const DEFAULT_BACKOFF: RetryBackoff = {
  baseMs: DEFAULT_RETRY_BACKOFF_MS,
  capMs: DEFAULT_RETRY_BACKOFF_MAX_MS,
};

/**
 * Checks a backoff: both whole, non-negative milliseconds, the cap at least the base.
 * @throws {InvalidInput} naming the field.
 */
export function assertBackoff(backoff: RetryBackoff): void {
  for (const [field, value] of [
    ["backoff.baseMs", backoff.baseMs],
    ["backoff.capMs", backoff.capMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new InvalidInput(field, `${field} must be a whole, non-negative number of ms; got ${value}`);
    }
  }
  if (backoff.capMs < backoff.baseMs) {
    throw new InvalidInput("backoff.capMs", `the backoff cap (${backoff.capMs} ms) is below its base`);
  }
}

/**
 * SQL for a failing attempt's row `t` (the row before the update) and its plan: the attempt's number
 * (a finish straight from `CLAIMED` counts its attempt here), the task's attempt limit (its own, its
 * plan's, then 3; the plan row read, not locked), whether it is retried, and when.
 */
export function retryTerms(planId: string, backoff: RetryBackoff) {
  const attempt = sql`(t.attempts + CASE WHEN t.status = 'CLAIMED' THEN 1 ELSE 0 END)`;
  const limit = sql`COALESCE(t.max_attempts, (SELECT p.max_attempts FROM ${plans} p WHERE p.id = ${planId}), ${DEFAULT_MAX_ATTEMPTS}::integer)`;
  const retried = sql`(${attempt} < ${limit})`;
  // base * 2^(attempt - 1), capped; the exponent is capped too so the double never overflows.
  const pauseMs = sql`least(${backoff.capMs}::double precision,
    ${backoff.baseMs}::double precision * power(2, least(${attempt} - 1, 30)))`;
  const notBefore = sql`CASE WHEN ${retried} THEN now() + make_interval(secs => ${pauseMs} / 1000) END`;
  return { attempt, limit, retried, notBefore };
}

/**
 * The failure kept on the task (`last_failure`) as a JSONB expression: the report's fields (only
 * those of `AttemptFailure`) with the attempt's number, worker and reason.
 */
export function lastFailureJson(
  report: FailureReport | undefined,
  attempt: SQL,
  workerId: string,
  reason: string,
): SQL {
  const kept: JsonObject = {};
  if (report?.step !== undefined) kept.step = report.step;
  if (report?.exit_code !== undefined) kept.exit_code = report.exit_code;
  if (report?.output_tail !== undefined) kept.output_tail = report.output_tail;
  if (report?.session_id !== undefined) kept.session_id = report.session_id;
  if (report?.manual_steps !== undefined) kept.manual_steps = [...report.manual_steps];
  return sql`(${JSON.stringify(storableJson(kept))}::jsonb || jsonb_build_object(
    'attempt', ${attempt}, 'worker_id', ${workerId}::text, 'reason', ${storableJson(reason)}::text))`;
}
