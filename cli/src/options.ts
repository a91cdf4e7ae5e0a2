import { MAX_DURATION_MS, parseDuration } from "@whilly/core";
import { UsageError } from "./exit-codes.js";

const WHOLE = /^\d+$/;

/**
 * Reads a whole-number flag as typed (yargs hands it over as a string, so `abc` is not turned into
 * `NaN` first): decimal digits only, from `min` to `max`. An absent flag gives `fallback`.
 * @throws {UsageError} naming the flag, the range and what was given; also for a flag given twice.
 */
export function wholeNumberOption(
  raw: unknown,
  flag: string,
  range: { min: number; max: number },
  fallback?: number,
): number | undefined {
  if (raw === undefined) return fallback;
  const hint = `digits only, e.g. ${flag} ${fallback ?? range.min}`;
  if (Array.isArray(raw)) {
    throw new UsageError(`${flag} was given ${raw.length} times; give it once`, {
      hint: `keep the one you mean: ${hint}`,
    });
  }
  const text = String(raw).trim();
  const value = WHOLE.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= range.min && value <= range.max) return value;
  const unbounded = range.max === Number.MAX_SAFE_INTEGER;
  const allowed = unbounded ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`;
  // Digits out of range: the fix is the range, not the spelling; the example is the nearest allowed value.
  const nearest = value > range.max ? range.max : range.min;
  const rangeHint = `${unbounded ? `at least ${range.min}` : allowed}, e.g. ${flag} ${nearest}`;
  throw new UsageError(`${flag} must be a whole number ${allowed}; got '${String(raw)}'`, {
    hint: WHOLE.test(text) ? rangeHint : hint,
  });
}

/** A duration flag in ms, more than 0. @throws {UsageError} naming the flag, with an example. */
export function durationFlag(raw: unknown, flag: string, example: string): number {
  const text = Array.isArray(raw) ? undefined : String(raw);
  const ms = text === undefined ? undefined : parseDuration(text);
  if (ms !== undefined) return ms;
  const wellFormed = text === undefined ? undefined : wellFormedMs(text);
  // A well-formed duration that is zero, or too long for a timer: say which, not how to spell it.
  if (text !== undefined && wellFormed !== undefined && Math.round(wellFormed) < 1) {
    throw new UsageError(`${flag} must be longer than 0; got '${text}'`, {
      hint: `give a positive duration, e.g. ${flag} ${example}`,
    });
  }
  if (text !== undefined && wellFormed !== undefined && wellFormed > MAX_DURATION_MS) {
    const longest = Math.floor(MAX_DURATION_MS / 3_600_000);
    throw new UsageError(`${flag} '${text}' is too long: at most ${longest}h (about 24 days)`, {
      hint: `give at most ${longest}h, e.g. ${flag} ${example}`,
    });
  }
  throw new UsageError(`${flag} must be a duration like 90s, 30m or 1h; got '${String(raw)}'`, {
    hint: `a number with s, m or h, or a bare number of seconds, e.g. ${flag} ${example}`,
  });
}

/** The ms of a duration's text as {@link parseDuration} reads it, unbounded; `undefined` when malformed. */
function wellFormedMs(text: string): number | undefined {
  const shape = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!shape) return undefined;
  const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[shape[2] ?? "s"] ?? 1000;
  return Number(shape[1]) * unitMs;
}

/** A text flag given once, not blank; `undefined` when absent. @throws {UsageError} otherwise. */
export function textFlag(raw: unknown, flag: string): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) {
    throw new UsageError(`${flag} was given ${raw.length} times; give it once`, {
      hint: `keep the one you mean: ${flag} VALUE`,
    });
  }
  const text = String(raw);
  if (text.trim() === "") throw new UsageError(`${flag} is empty`, { hint: `give a value, or drop ${flag}` });
  return text;
}
