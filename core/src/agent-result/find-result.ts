/** A JSON object as parsed, before any field is trusted. */
export type RawObject = { readonly [key: string]: unknown };

/** Most attempts to parse the end of stdout from a later line start; bounds the work on huge output. */
const MAX_TAIL_PARSES = 64;

/**
 * Finds Claude Code's result object (`{"type":"result",…}`) in what it printed on stdout. Handles the
 * shapes seen in the field (claude-code-offline.md): one JSON object; a JSON array of every message
 * (`--verbose`), where the last element of type `result` wins; JSON Lines (`stream-json`), where the
 * last result line wins; and any of these after banners or debug lines, also pretty-printed over
 * several lines. An object without `type` but with a boolean `is_error` is taken as a result too
 * (older releases).
 * @returns the object, or `undefined` when no result object can be found.
 */
export function findResultObject(stdout: string): RawObject | undefined {
  const text = stdout.trim();
  if (text === "") return undefined;
  const whole = resultIn(tryParse(text));
  if (whole) return whole;

  const lines = text.split("\n");
  const offsets: number[] = [];
  let offset = 0;
  for (const line of lines) {
    offsets.push(offset);
    offset += line.length + 1;
  }
  // Last JSON line first: a stream of objects ends with the result, and noise rarely follows it.
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = (lines[i] ?? "").trim();
    if (!line.startsWith("{") && !line.startsWith("[")) continue;
    const found = resultIn(tryParse(line));
    if (found) return found;
  }
  // Then a JSON document spread over several lines after some noise: parse from each later line start.
  let attempts = 0;
  for (let i = lines.length - 1; i > 0 && attempts < MAX_TAIL_PARSES; i -= 1) {
    const line = (lines[i] ?? "").trimStart();
    if (!line.startsWith("{") && !line.startsWith("[")) continue;
    attempts += 1;
    const found = resultIn(tryParse(text.slice(offsets[i])));
    if (found) return found;
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
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
