/**
 * Linear scans that decide, without `JSON.parse`, whether parsing a piece of agent output is worth it.
 * A failed `JSON.parse` costs microseconds (it builds an exception), and output with millions of lines
 * that start with `{` would otherwise cost a parse and an exception each.
 */

import { Token } from "../json/lexer.js";
import { walkJson } from "../json/walk.js";

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Members of a result object that {@link mayHoldResult} looks for. */
const TYPE = 1;
const IS_ERROR = 2;

/**
 * True when `text` is exactly one JSON value as `JSON.parse` reads it (ECMA-404: JSON whitespace only,
 * no trailing commas, strict strings and numbers) and it has a member a result object needs:
 * `"type": "result"` or `"is_error": true|false` on a top-level object, or `"type": "result"` on an
 * object directly inside a top-level array. A key or string with an escape sequence counts, since it
 * may decode to one of these. So `false` means `JSON.parse` would throw or its value could not hold a
 * result; `true` means it is worth parsing. Linear in `text.length`, nesting depth included.
 */
export function mayHoldResult(text: string): boolean {
  if (!mentionsResultKey(text)) return false;
  let depth = 0;
  let outer: Token = Token.END;
  let hinted = false;
  /** Which member of a result the value being read could complete (TYPE, IS_ERROR, both, or none). */
  let watched = 0;
  const invalid = walkJson(text, {
    open: (kind) => {
      if (depth === 0) outer = kind;
      depth += 1;
      watched = 0;
    },
    close: () => {
      depth -= 1;
    },
    key: (start, end) => {
      watched = !hinted && depth <= 2 ? keyKind(text.slice(start + 1, end - 1), depth, outer) : 0;
    },
    scalar: (kind, start, end) => {
      if (kind === Token.STRING && (watched & TYPE) !== 0)
        hinted ||= isResultString(text.slice(start + 1, end - 1));
      // `true` or `false`; `null` cannot be a result's `is_error`.
      if (kind === Token.LITERAL && (watched & IS_ERROR) !== 0) hinted ||= text.charAt(start) !== "n";
      watched = 0;
    },
  });
  return invalid === undefined && hinted;
}

/**
 * A quick necessary condition for {@link mayHoldResult} (and so for holding a result): `text` contains
 * `"type"`, `"is_error"` or a backslash. Native substring searches, much faster than a scan.
 */
export function mentionsResultKey(text: string): boolean {
  return text.includes('"type"') || text.includes('"is_error"') || text.includes("\\");
}

/**
 * Where the JSON object or array that ends `text` would begin: the `{` or `[` matching the last
 * character, found by walking backwards and telling string contents by their quotes. If some suffix of
 * `text` that starts with `{` or `[` is one JSON value, it starts here, so no other suffix needs parsing.
 * Linear in `text.length`.
 * @returns the index, or -1 when `text` does not end with `}` or `]` or has no matching opener.
 */
export function startOfTrailingValue(text: string): number {
  const last = text.charCodeAt(text.length - 1);
  if (last !== CLOSE_OBJECT && last !== CLOSE_ARRAY) return -1;
  let depth = 0;
  let inString = false;
  for (let i = text.length - 1; i >= 0; i -= 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A quote after an odd run of backslashes is escaped. The run holds no quote or bracket: skip it.
      const run = backslashesBefore(text, i);
      if (run % 2 === 0) inString = !inString;
      i -= run;
    } else if (!inString) {
      depth += nesting(c);
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Read backwards, a closer enters a container (+1) and an opener leaves one (-1). */
function nesting(c: number): number {
  if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) return 1;
  return c === OPEN_OBJECT || c === OPEN_ARRAY ? -1 : 0;
}

function backslashesBefore(text: string, at: number): number {
  let k = at - 1;
  while (k >= 0 && text.charCodeAt(k) === BACKSLASH) k -= 1;
  return at - 1 - k;
}

/** Which member of a result a key (its text between the quotes) may start at this depth. */
function keyKind(raw: string, depth: number, outer: Token): number {
  if (raw.includes("\\")) return TYPE | IS_ERROR;
  if (raw === "type" && (depth === 1 || outer === Token.OPEN_ARRAY)) return TYPE;
  return raw === "is_error" && depth === 1 ? IS_ERROR : 0;
}

/** Whether a string (its text between the quotes) may be `result`. */
function isResultString(raw: string): boolean {
  return raw === "result" || raw.includes("\\");
}
