import { mayHoldResult, mentionsResultKey, startOfTrailingValue } from "./json-scan.js";

/** A JSON object as parsed, before any field is trusted. */
export type RawObject = { readonly [key: string]: unknown };

/** A document spread over several lines is looked for from at most this many line starts from the end. */
const MAX_TAIL_PARSES = 64;

/**
 * Finds Claude Code's result object (`{"type":"result",…}`) in what it printed on stdout. Handles the
 * shapes seen in the field (claude-code-offline.md): one JSON object; a JSON array of every message
 * (`--verbose`), where the last element of type `result` wins; JSON Lines (`stream-json`), where the
 * last result line wins; and any of these after banners or debug lines, also pretty-printed over
 * several lines (beginning at one of the last 64 lines that start with `{` or `[`). An object without
 * `type` but with a boolean `is_error` is taken as a result too (older releases).
 *
 * Time is linear in the output's length, whatever it holds: text is parsed only after a linear scan
 * found it to be JSON that may hold a result (see {@link mayHoldResult}), so millions of lines that
 * start with `{` cost a scan each, not a failed parse.
 * @returns the object, or `undefined` when no result object can be found.
 */
export function findResultObject(stdout: string): RawObject | undefined {
  const text = stdout.trim();
  // Every candidate below is a piece of the text: without a key a result needs, none can be one.
  if (text === "" || !mentionsResultKey(text)) return undefined;
  const whole = parsedResult(text);
  if (whole) return whole;

  const lines = text.split("\n");
  // Last JSON line first: a stream of objects ends with the result, and noise rarely follows it.
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = (lines[i] ?? "").trim();
    if (!opensJson(line)) continue;
    const found = parsedResult(line);
    if (found) return found;
  }
  return resultAfterNoise(text, lines);
}

/**
 * A JSON document spread over several lines after some noise: the text from a line start (not the
 * first line's, which is the whole text) to the end. Only one such suffix can be a JSON value, the
 * one starting where the final `}` or `]` is opened, so only that one is parsed.
 */
function resultAfterNoise(text: string, lines: readonly string[]): RawObject | undefined {
  const start = startOfTrailingValue(text);
  if (start <= 0) return undefined;
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  if (lineStart === 0 || text.slice(lineStart, start).trim() !== "") return undefined;
  // Count the candidate line starts after this one, from the end, as a bounded search would meet them.
  let later = 0;
  let offset = text.length;
  for (let i = lines.length - 1; i > 0; i -= 1) {
    const line = lines[i] ?? "";
    offset -= line.length;
    if (offset === lineStart) break;
    offset -= 1;
    if (opensJson(line.trimStart())) later += 1;
    if (later >= MAX_TAIL_PARSES) return undefined;
  }
  return parsedResult(text.slice(lineStart));
}

function opensJson(line: string): boolean {
  return line.startsWith("{") || line.startsWith("[");
}

/** The result object `text` holds as a whole JSON value, parsed only when it may hold one. */
function parsedResult(text: string): RawObject | undefined {
  if (!mayHoldResult(text)) return undefined;
  try {
    return resultIn(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function resultIn(value: unknown): RawObject | undefined {
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i -= 1) {
      const item: unknown = value[i];
      if (isObject(item) && item.type === "result") return item;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (value.type === "result") return value;
  if (value.type === undefined && typeof value.is_error === "boolean") return value;
  return undefined;
}

function isObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
