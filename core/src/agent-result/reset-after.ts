/** `try again in 2.4s`, `Try again in 6m0s`, `resets in 3 hours 20 minutes`: the span after `in`. */
const SPAN_TEXT =
  /\b(?:try again|resets?) in\s+((?:\d+(?:\.\d+)?\s*(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])[\s,]*(?:and\s+)?)+)/i;

/** One number and its unit inside a span. */
const PART =
  /(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])/gi;

/** Milliseconds per unit, by the unit's first letters. */
function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u === "ms" || u.startsWith("milli")) return 1;
  if (u.startsWith("s")) return 1000;
  if (u.startsWith("m")) return 60_000;
  if (u.startsWith("h")) return 3_600_000;
  return 86_400_000;
}

/**
 * The instant a limit message's span names, counted from `now`: `Please try again in 2.4s` (OpenAI's
 * rate limits, as Codex passes them on), `try again in 6m0s`, `resets in 3 hours 20 minutes`.
 * `undefined` when the text names no span, or one of zero length.
 */
export function resetAfter(text: string, now: Date): Date | undefined {
  const span = SPAN_TEXT.exec(text)?.[1];
  if (span === undefined) return undefined;
  let ms = 0;
  for (const part of span.matchAll(PART)) ms += Number(part[1]) * unitMs(part[2] ?? "s");
  return ms > 0 && Number.isFinite(ms) ? new Date(now.getTime() + Math.ceil(ms)) : undefined;
}
