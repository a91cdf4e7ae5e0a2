/**
 * Money is integer micro-dollars (1 USD = 1,000,000 µUSD) in TypeScript and `NUMERIC(14,6)` in Postgres,
 * so sums never drift. Agent CLIs report cost with at most six decimals (claude-code-offline.md), which
 * this keeps exactly. Numbers stay below `Number.MAX_SAFE_INTEGER` (about 9 billion USD).
 */
export type MicroUsd = number;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** The largest amount the store holds: `NUMERIC(14,6)` has eight integer digits. */
export const MAX_MICRO_USD: MicroUsd = 99_999_999_999_999;

/**
 * Parses a non-negative decimal amount in USD (`"5"`, `"0.059272"`, `0.25`) into micro-dollars,
 * rounding half up past the sixth decimal.
 * @returns the amount, or `undefined` when `value` is not a finite, non-negative decimal in range.
 */
export function parseUsd(value: string | number): MicroUsd | undefined {
  const text = typeof value === "number" ? numberToPlain(value) : value.trim();
  if (text === undefined) return undefined;
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(7, "0");
  let micro = Number(whole) * 1_000_000 + Number(fraction.slice(0, 6));
  if (Number(fraction[6]) >= 5) micro += 1;
  if (!Number.isSafeInteger(micro) || micro > MAX_MICRO_USD) return undefined;
  return micro;
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

function numberToPlain(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  // toFixed(12) avoids exponent notation for tiny costs like 1e-7; the parser then rounds at six places.
  return value.toFixed(12);
}
