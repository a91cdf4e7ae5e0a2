/**
 * Money is integer micro-dollars (1 USD = 1,000,000 µUSD) in TypeScript and `NUMERIC(14,6)` in Postgres,
 * so sums never drift. Agent CLIs report cost with at most six decimals (claude-code-offline.md), which
 * this keeps exactly. Numbers stay below `Number.MAX_SAFE_INTEGER` (about 9 billion USD).
 */
export type MicroUsd = number;

/** A decimal as written in a string: digits, optionally a fraction; a sign only on zero (below). */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
/** What `String(number)` gives: a decimal, or a mantissa and an exponent (`1e-7`, `1.5e+21`). */
const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/** The largest amount the store holds: `NUMERIC(14,6)` has eight integer digits. */
export const MAX_MICRO_USD: MicroUsd = 99_999_999_999_999;

/**
 * The one rule for an amount of USD on every path (HTTP `cost_usd`, agent CLI results, budgets and
 * reserves), documented in docs/protocol.md:
 * - a JSON number (its exact decimal value, as JavaScript prints it) or a string of digits with an
 *   optional fraction (`"5"`, `"0.059272"`); no whitespace, no `+`, no exponent in a string;
 * - not negative, except that zero may carry a sign (`-0`, `"-0"`, `"-0.00"` are 0);
 * - at most `99999999.999999` (`NUMERIC(14,6)`) as written, then rounded half up to six decimals
 *   (`"0.0000004"` is 0, `"0.0000005"` is 0.000001).
 * @returns micro-dollars, or `undefined` when `value` breaks the rule.
 */
export function parseUsd(value: string | number): MicroUsd | undefined {
  let match: RegExpExecArray | null;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    match = NUMBER_TEXT.exec(String(value));
  } else {
    match = DECIMAL.exec(value);
  }
  if (!match) return undefined;
  const [, sign = "", whole = "0", fraction = "", exponent] = match;
  const digits = shift(whole, fraction, exponent === undefined ? 0 : Number(exponent));
  if (digits === undefined) return undefined;
  const isZero = /^0*$/.test(digits.whole + digits.fraction);
  if (sign === "-" && !isZero) return undefined;
  const wholePart = digits.whole.replace(/^0+(?=\d)/, "");
  if (wholePart.length > 8) return undefined;
  const kept = digits.fraction.padEnd(6, "0").slice(0, 6);
  const rest = digits.fraction.slice(6);
  let micro = Number(wholePart) * 1_000_000 + Number(kept);
  if (micro === MAX_MICRO_USD && /[1-9]/.test(rest)) return undefined;
  if (rest.length > 0 && Number(rest[0]) >= 5) micro += 1;
  return micro;
}

/** Moves the decimal point of `whole.fraction` by `exponent` places; `undefined` when absurdly far. */
function shift(
  whole: string,
  fraction: string,
  exponent: number,
): { whole: string; fraction: string } | undefined {
  if (exponent === 0) return { whole, fraction };
  if (Math.abs(exponent) > 400) return undefined;
  const all = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return { whole: "0", fraction: "0".repeat(-point) + all };
  if (point >= all.length) return { whole: all + "0".repeat(point - all.length), fraction: "" };
  return { whole: all.slice(0, point), fraction: all.slice(point) };
}

/** Formats micro-dollars as a plain decimal string with six decimals, e.g. `"0.059272"`. */
export function formatUsd(micro: MicroUsd): string {
  const sign = micro < 0 ? "-" : "";
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000).padStart(6, "0");
  return `${sign}${whole}.${fraction}`;
}

/** Formats micro-dollars for people: `$0.0593`, at least two and at most four decimals. */
export function displayUsd(micro: MicroUsd): string {
  const text = formatUsd(micro);
  const [whole, fraction = ""] = text.split(".");
  const trimmed = fraction.slice(0, 4).replace(/0+$/, "").padEnd(2, "0");
  return `$${whole}.${trimmed}`;
}
