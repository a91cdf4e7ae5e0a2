import type { SettingsProblem } from "./settings-problems.js";

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

/**
 * A duration as its flag would be written: whole hours, minutes and seconds (`10m`, `1h30m`, `90s` as
 * `1m30s`), or ms when it is not a whole number of seconds (`1500ms`). `ms` is milliseconds, >= 0.
 */
export function durationText(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole === 0 || whole % 1000 !== 0) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const s = Math.floor((whole % 60_000) / 1000);
  return `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${s > 0 ? `${s}s` : ""}`;
}

/** Environment variables as strings (Node's `process.env`, or a Worker's string vars and secrets). */
export type StringEnv = Readonly<Record<string, string | undefined>>;

/** The bounds of one duration setting and the unit of its text. */
export type DurationRange = {
  /** The unit of a bare number: 1000 for seconds, 1 for milliseconds. */
  readonly unitMs: 1 | 1000;
  /** The longest value accepted (ms); at most {@link MAX_DURATION_MS}, which timers can hold. */
  readonly maxMs?: number | undefined;
  /** 0 when no time at all means something (no grace before SIGKILL); else the least is 1 ms. */
  readonly minMs?: 0 | 1 | undefined;
  /** Also accept a unit: `1500ms`, `90s`, `30m`, `1h` (fractions allowed, `1.5h`). */
  readonly units?: boolean | undefined;
};

/** How to read one duration variable: its bounds, and the value when it is unset or blank (ms). */
export type DurationSpec = DurationRange & { readonly fallbackMs: number };

const DECIMAL = /^(\d+(?:\.\d+)?)$/;
const WITH_UNIT = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;

/**
 * Checks the text of one duration setting: a plain decimal number (`30`, `0.5`; no sign, exponent, hex
 * or `Infinity`) in `range.unitMs`, or with `range.units` also one with a unit (`90s`, `1.5h`), rounded
 * to whole ms; at least 1 ms (or 0 with `minMs: 0`) and at most `range.maxMs` (default and ceiling
 * {@link MAX_DURATION_MS}: a longer timer fires at once). Every program of whilly reads its durations
 * through this, so each refuses the same values with the same words.
 * @param name what the message calls the setting: its variable, or its flag and variable.
 * @returns `{ ms }`, or `{ problem }`: a message naming `name`, the range and the text given.
 */
export function checkDuration(
  text: string,
  name: string,
  range: DurationRange,
): { readonly ms: number } | { readonly problem: string } {
  const raw = text.trim();
  const max = Math.min(range.maxMs ?? MAX_DURATION_MS, MAX_DURATION_MS);
  const min = range.minMs ?? 1;
  const match = (range.units ? WITH_UNIT : DECIMAL).exec(raw);
  const unitMs = match?.[2] === undefined ? range.unitMs : UNIT_MS[match[2] as keyof typeof UNIT_MS];
  const ms = match?.[1] === undefined ? Number.NaN : Math.round(Number(match[1]) * unitMs);
  if (Number.isSafeInteger(ms) && ms >= min && ms <= max) return { ms };
  return { problem: `${name} ${rangeText(range, max, ms === 0 && Number(match?.[1]) > 0)}; got '${raw}'` };
}

function rangeText(range: DurationRange, max: number, underOneMs: boolean): string {
  if (range.units) {
    const bare = range.unitMs === 1 ? "milliseconds" : "seconds";
    return `must be a duration like 90s, 30m or 1h (a bare number is ${bare}), from ${range.minMs ?? 1} ms up to ${max} ms`;
  }
  const unit = range.unitMs === 1 ? "milliseconds" : "seconds";
  if (range.minMs === 0) return `must be a number of ${unit} from 0 up to ${max / range.unitMs}`;
  // A positive value under a millisecond rounds to none: say what the least one is.
  const least = underOneMs ? `, at least ${1 / range.unitMs}` : "";
  return `must be a positive number of ${unit} up to ${max / range.unitMs}${least}`;
}

/**
 * Reads a duration variable with {@link checkDuration}. Unset or blank gives `spec.fallbackMs`. A bad
 * value appends its problem (with a hint showing a good value: the default) to `problems` and gives the
 * fallback, so the caller can report every bad variable at once.
 * @returns milliseconds.
 */
export function readDuration(
  env: StringEnv,
  name: string,
  spec: DurationSpec,
  problems: SettingsProblem[],
): number {
  const raw = env[name]?.trim();
  if (!raw) return spec.fallbackMs;
  const checked = checkDuration(raw, name, spec);
  if ("ms" in checked) return checked.ms;
  const example = spec.units ? `${spec.fallbackMs / 1000}s` : String(spec.fallbackMs / spec.unitMs);
  problems.push({
    message: checked.problem,
    hint: `e.g. ${name}=${example} (the default), or unset it`,
  });
  return spec.fallbackMs;
}
