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
