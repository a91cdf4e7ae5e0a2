import type { RawObject } from "./find-result.js";
import { resetAfter } from "./reset-after.js";

/**
 * A provider's refusal for a usage or rate limit, after the CLI's own retries: not the task's failure.
 * `until` is when the provider said the limit resets; `undefined` when it named no time (the runner then
 * waits a capped backoff).
 */
export type ProviderLimit = { readonly message: string; readonly until: Date | undefined };

/** HTTP statuses of a limit: 429 (rate limit) and 529 (overloaded). */
const LIMIT_STATUSES = new Set([429, 529]);

/** Error types of the Messages API that mean "come back later". */
const LIMIT_ERROR_TYPES = new Set(["rate_limit_error", "overloaded_error"]);

/**
 * How Claude Code words a subscription's usage limit: `You've hit your limit · resets 8pm (America/New_York)`,
 * `You've hit your weekly limit · ...`, `Limit reached · resets 5pm`, `Session limit reached ∙ resets 10am`,
 * `5-hour limit reached`, `You're out of extra usage · resets 3pm (UTC)`,
 * `Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).`,
 * `Claude AI usage limit reached|1749924000`. A warning such as `You've used 97% of your session limit`
 * is not one. Codex words it `You’ve hit your usage limit. Try again at 6:06 PM.` (its error type
 * `usage_limit_reached`).
 */
const USAGE_LIMIT_TEXT =
  /you['’]ve hit your (?:[\w-]+ )*limit|you['’]re out of extra usage|\blimit reached\b|usage limit reached|usage_limit_reached/i;

/**
 * How the API's own limit errors read once the CLI gave up: `Request rejected (429)`, `API Error: 529 ...`;
 * Codex's `exceeded retry limit, last status: 429 Too Many Requests` and `rate limit exceeded: ...`.
 */
const API_LIMIT_TEXT =
  /request rejected \((?:429|529)\)|api error: (?:429|529)\b|rate_limit_error|overloaded_error|last status: 429\b|\b429 too many requests\b|rate_limit_exceeded|\brate limit exceeded\b/i;

/**
 * Tells whether a failed run was refused for a provider limit, and until when. Only failed runs count
 * (`is_error`, or a non-zero exit): a success whose text mentions a limit is a success. With a result
 * JSON: `api_error_status` 429 or 529, `api_error_type` `rate_limit_error`/`overloaded_error`, or a limit
 * worded in `texts` (the result text and `errors`); another HTTP status (e.g. 500 "overloaded") is an
 * ordinary failure unless the text is a usage-limit message. Without one, only a usage-limit message on
 * stdout or stderr counts.
 * @param texts the result text and the CLI's `errors`, or raw stdout/stderr without a result JSON.
 * @param now the time the reset is computed from (the next such time after it).
 * @param hostZone the IANA zone of a reset time printed without one (the CLI prints local time); default
 *   this process's zone.
 */
export function providerLimit(
  json: RawObject | undefined,
  texts: readonly string[],
  now: Date,
  hostZone?: string,
): ProviderLimit | undefined {
  const usageText = texts.find((t) => USAGE_LIMIT_TEXT.test(t));
  const message = firstLine(usageText ?? texts.find((t) => t.trim() !== "") ?? "");
  const until = () => {
    for (const t of texts) {
      const at = limitResetTime(t, now, hostZone) ?? geminiRetryAt(t, now);
      if (at !== undefined) return at;
    }
    return undefined;
  };
  if (usageText !== undefined) return { message, until: until() };
  if (json === undefined) return undefined;
  const status = json.api_error_status;
  const type = json.api_error_type;
  if (typeof status === "number" && LIMIT_STATUSES.has(status)) return { message, until: until() };
  if (typeof type === "string" && LIMIT_ERROR_TYPES.has(type)) return { message, until: until() };
  if (typeof status === "number") return undefined;
  const limitText = (t: string) => API_LIMIT_TEXT.test(t) || GEMINI_LIMIT_TEXT.test(t);
  return texts.some(limitText) ? { message, until: until() } : undefined;
}

// Gemini CLI wordings (the Gemini API's quota errors as the Gemini CLI prints them).

/**
 * How the Gemini API's quota and rate limits read once the Gemini CLI gave up:
 * `[API Error: You have exhausted your daily quota on this model.]`, `Quota exceeded for quota metric
 * 'Generate Content API requests per minute' ...`, `You exceeded your current quota ...`, a
 * `RESOURCE_EXHAUSTED` body, `Resource has been exhausted (e.g. check quota).`, `You have exhausted your
 * capacity on this model`, `Rate limit exceeded`. Narrow on purpose: a disk's "quota exceeded" or a
 * tool's "rate limited" in a failed run's text is the task's failure, not the provider's limit.
 */
const GEMINI_LIMIT_TEXT =
  /\bRESOURCE_EXHAUSTED\b|resource has been exhausted|quota exceeded for quota metric|exceeded your current quota|exhausted your (?:daily |monthly )?(?:quota|capacity)|rate limit exceeded/i;

/** `Please retry in 43.5s.`, `Please retry in 850ms`, `Suggested retry after 60s.`: a reset after a delay. */
const GEMINI_RETRY_AFTER = /(?:please retry in|suggested retry after)\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i;

/** The instant a Gemini quota error's retry delay ends, counted from `now`; `undefined` when it names none. */
export function geminiRetryAt(text: string, now: Date): Date | undefined {
  const m = GEMINI_RETRY_AFTER.exec(text);
  if (m?.[1] === undefined) return undefined;
  const ms = Number(m[1]) * (m[2]?.toLowerCase() === "ms" ? 1 : 1000);
  return Number.isFinite(ms) ? new Date(now.getTime() + Math.ceil(ms)) : undefined;
}
// End of the Gemini CLI wordings.

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/**
 * `resets 8pm (America/New_York)`, `resets 1:30pm (Asia/Kolkata)`, `resets Mar 15 at 12pm (Europe/London)`,
 * `resets Dec 2, 3:30pm (Europe/Berlin)`, `resets Jan 3, 2027, 9am (UTC)`, `will reset at 12am.`,
 * `resets 20:00 (UTC)`. Claude Code prints the time alone within a day, else `Mon D, h[:mm]am` (with the
 * year when it differs), then its own zone. Codex prints `Try again at 6:06 PM.` within the day, else
 * `Try again at Dec 3rd, 2026 6:06 PM.`, in the local time of the machine it runs on (no zone). Groups:
 * month, day, year, hour, minute, am/pm, zone.
 */
const RESET_TEXT =
  /\b(?:reset(?:s| at|s at)|try again at)\s+(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)\s]+)\))?/i;

/** `Claude AI usage limit reached|1749924000`: the reset as Unix seconds. */
const RESET_EPOCH = /limit reached\|(\d{9,11})\b/i;

/**
 * The reset time a limit message names, as an instant: the next time after `now` that the named wall
 * time (and date, when given) occurs in the named IANA time zone, computed with `Intl` so daylight saving
 * is honoured. A time without a zone is in `hostZone`. `undefined` when the text names no reset time, or
 * names a zone `Intl` does not know (e.g. `Etc/Unknown`) or an impossible time. A span instead of a
 * time (`Please try again in 2.4s`, `try again in 6m0s`, `resets in 3 hours`) counts from `now`.
 */
export function limitResetTime(text: string, now: Date, hostZone?: string): Date | undefined {
  const epoch = RESET_EPOCH.exec(text);
  if (epoch?.[1] !== undefined) return new Date(Number(epoch[1]) * 1000);
  const named = namedReset(text);
  if (named === undefined) return resetAfter(text, now);
  const zone = named.zone ?? hostZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const today = wallDate(now, zone);
  if (today === undefined) return undefined;
  const { hour, minute } = named;
  // The candidates in order: this year's date and the next (a date given), or today and tomorrow.
  const candidates =
    named.month === undefined || named.day === undefined
      ? [0, 1].map((days) => ({ ...shiftDays(today, days), hour, minute }))
      : [today.year, today.year + 1].map((year) => ({
          year,
          month: named.month,
          day: named.day,
          hour,
          minute,
        }));
  for (const wall of candidates) {
    const at = zonedInstant(wall as Wall, zone);
    if (at.getTime() > now.getTime()) return at;
  }
  return undefined;
}

type NamedReset = {
  year?: number;
  month?: number;
  day?: number;
  hour: number;
  minute: number;
  zone?: string;
};

/** The wall time (24 h), the date and the zone a reset text names; `undefined` for none or an impossible one. */
function namedReset(text: string): NamedReset | undefined {
  const m = RESET_TEXT.exec(text);
  if (m === null) return undefined;
  const [, monthName, dayText, yearText, hourText, minuteText, meridiem, zone] = m;
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.toLowerCase() === "pm" ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const reset: NamedReset = { hour, minute, ...(zone === undefined ? {} : { zone }) };
  if (monthName === undefined) return reset;
  const day = Number(dayText);
  if (day < 1 || day > 31) return undefined;
  const month = MONTHS.indexOf(monthName.toLowerCase()) + 1;
  return { ...reset, month, day, ...(yearText === undefined ? {} : { year: Number(yearText) }) };
}

/** The calendar date `days` after `date`. */
function shiftDays(date: Wall, days: number): { year: number; month: number; day: number } {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

type Wall = { year: number; month: number; day: number; hour: number; minute: number };

/** The wall-clock date and time of `instant` in `zone`, or `undefined` for a zone `Intl` does not know. */
function wallDate(instant: Date, zone: string): Wall | undefined {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
  } catch {
    return undefined;
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
  };
}

/**
 * The instant at which `zone`'s clocks show `wall`: the zone's offset is read at a first guess and read
 * again at the result, which settles it across a daylight-saving change (a wall time skipped by the
 * change lands just after it).
 */
function zonedInstant(wall: Wall, zone: string): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  let guess = asUtc;
  for (let i = 0; i < 2; i += 1) {
    const seen = wallDate(new Date(guess), zone);
    if (seen === undefined) break;
    const offset = Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute) - guess;
    guess = asUtc - offset;
  }
  return new Date(guess);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
