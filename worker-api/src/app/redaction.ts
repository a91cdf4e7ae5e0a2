import {
  dropCutFragment,
  type FailureReport,
  type JsonObject,
  OUTPUT_TAIL_BYTES,
  redactJson,
  redactSecrets,
} from "@whilly/core";

/** A tail this close to the limit (bytes) was cut from longer output by the worker. */
const CUT_SLACK_BYTES = 4;

/**
 * An attempt's `detail` as the control plane keeps it: every string redacted ({@link redactSecrets}
 * with the control plane's own secrets), and an `output_tail` at its full length, which a worker cut
 * from longer output, loses its first word, in case the cut split a secret. Workers redact before they
 * send; this covers workers of older versions and secrets only the control plane knows.
 */
export function keptDetail(
  detail: JsonObject | undefined,
  secrets: readonly string[],
): JsonObject | undefined {
  if (detail === undefined) return undefined;
  const kept = redactJson(detail, secrets);
  const tail = kept.output_tail;
  if (typeof tail === "string" && utf8Length(tail) >= OUTPUT_TAIL_BYTES - CUT_SLACK_BYTES) {
    kept.output_tail = dropCutFragment(tail);
  }
  return kept;
}

/** A free-text field from a worker (a failure's reason) as the control plane keeps it. */
export function keptText(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets);
}

/**
 * A fail body's `failure` as the store keeps it for the next attempt: only `AttemptFailure`'s fields
 * of the right type (`attempt`, `worker_id` and `reason` are the control plane's to fill in), redacted
 * like a detail. @returns `undefined` when the body sent none.
 */
export function keptFailure(
  failure: JsonObject | undefined,
  secrets: readonly string[],
): FailureReport | undefined {
  const kept = keptDetail(failure, secrets);
  if (kept === undefined) return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const exit = kept.exit_code;
  const manual = kept.manual_steps;
  return {
    step: text(kept.step),
    exit_code: typeof exit === "number" && Number.isInteger(exit) ? exit : exit === null ? null : undefined,
    output_tail: text(kept.output_tail),
    session_id: text(kept.session_id),
    manual_steps: Array.isArray(manual)
      ? manual.filter((s): s is string => typeof s === "string")
      : undefined,
  };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
