import { dropCutFragment, type JsonObject, OUTPUT_TAIL_BYTES, redactJson, redactSecrets } from "@whilly/core";

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

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
