/**
 * The longest duration whilly accepts (ms): timers (`setTimeout`) hold at most 2^31 - 1 ms, about 24.8
 * days, and fire at once beyond it.
 */
export const MAX_DURATION_MS = 2_147_483_647;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * Parses a duration flag: `90s`, `30m`, `1h`, `1500ms`, or a bare number of seconds (fractions allowed).
 * @returns milliseconds, or `undefined` when the text is not a positive duration of at most
 *   {@link MAX_DURATION_MS}.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? "s") as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}
