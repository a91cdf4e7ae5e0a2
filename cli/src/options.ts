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
  const allowed =
    range.max === Number.MAX_SAFE_INTEGER ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`;
  throw new UsageError(`${flag} must be a whole number ${allowed}; got '${String(raw)}'`, { hint });
}
