import type { JsonObject } from "../model.js";
import { formatUsd } from "../money.js";
import type { AgentOutcome } from "./outcome.js";

/**
 * The attempt summary stored in a `COMPLETE` or `FAIL` event's `detail`: `attempt` (when given), `ok`,
 * `reason` and `message` (failures only), `cost_usd` (decimal string, six places), `num_turns`,
 * `duration_ms`, `session_id`, `exit_code`, `signal`, `permission_denials` (tool names, when any),
 * `output_tail` (at most 4 KiB), `tokens` (`input`, `output`, `cache_read`, `cache_creation`: what the agent
 * reported, summed over its turns; all 0 when it reported none), `limited_until` (ISO or null, for `rate_limited`). Holds no secrets: the outcome was redacted when it was made.
 */
export function agentOutcomeDetail(outcome: AgentOutcome, attempt?: number): JsonObject {
  const detail: JsonObject = {
    ...(attempt === undefined ? {} : { attempt }),
    ok: outcome.ok,
    cost_usd: formatUsd(outcome.costMicroUsd),
    num_turns: outcome.numTurns,
    duration_ms: outcome.durationMs,
    session_id: outcome.sessionId,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    output_tail: outcome.outputTail,
    tokens: {
      input: outcome.usage.inputTokens,
      output: outcome.usage.outputTokens,
      cache_read: outcome.usage.cacheReadTokens,
      cache_creation: outcome.usage.cacheCreationTokens,
    },
  };
  if (outcome.reason !== undefined) {
    detail.reason = outcome.reason;
    detail.message = outcome.message;
  }
  if (outcome.unavailable !== undefined) detail.unavailable = outcome.unavailable;
  if (outcome.limited !== undefined) detail.limited_until = outcome.limited.until?.toISOString() ?? null;
  if (outcome.permissionDenials.length > 0) {
    detail.permission_denials = outcome.permissionDenials.map((d) => d.toolName);
  }
  return detail;
}
