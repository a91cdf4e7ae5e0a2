/**
 * Linear scans that decide, without `JSON.parse`, whether parsing a piece of agent output is worth it.
 * A failed `JSON.parse` costs microseconds (it builds an exception), and output with millions of lines
 * that start with `{` would otherwise cost a parse and an exception each.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Container kinds on the scan's stack. */
const OBJECT = 1;
const ARRAY = 2;

/** Members of a result object that {@link mayHoldResult} looks for. */
const TYPE = 1;
const IS_ERROR = 2;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
/** The characters after a backslash that make a JSON escape (besides `u`): `" \ / b f n r t`. */
const ESCAPABLE = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LITERALS: Readonly<Record<number, string>> = { 116: "true", 102: "false", 110: "null" };

/**
 * True when `text` is exactly one JSON value as `JSON.parse` reads it (ECMA-404: JSON whitespace only,
 * no trailing commas, strict strings and numbers) and it has a member a result object needs:
 * `"type": "result"` or `"is_error": true|false` on a top-level object, or `"type": "result"` on an
 * object directly inside a top-level array. A key or string with an escape sequence counts, since it
 * may decode to one of these. So `false` means `JSON.parse` would throw or its value could not hold a
 * result; `true` means it is worth parsing. Linear in `text.length`, nesting depth included.
 */
export function mayHoldResult(text: string): boolean {
  return mentionsResultKey(text) && new ResultScan(text).run();
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

/** One pass of {@link mayHoldResult} over a text: a JSON syntax check with an explicit container stack. */
class ResultScan {
  private i = 0;
  private stack = new Uint8Array(64);
  private depth = 0;
  /** A result member was seen. */
  private hinted = false;
  /** Which member of a result the value being read could complete (TYPE, IS_ERROR, both, or none). */
  private watched = 0;

  constructor(private readonly text: string) {}

  run(): boolean {
    const { text } = this;
    this.i = skipSpace(text, 0);
    let expectKey = false;
    for (;;) {
      if (expectKey && !this.key()) return false;
      const c = text.charCodeAt(this.i);
      if ((c === OPEN_OBJECT || c === OPEN_ARRAY) && this.open(c)) {
        expectKey = c === OPEN_OBJECT;
        continue;
      }
      if (c !== OPEN_OBJECT && c !== OPEN_ARRAY && !this.scalar(c)) return false;
      this.watched = 0;
      const next = this.close();
      if (next === "end") return this.i === text.length && this.hinted;
      if (next === "invalid") return false;
      expectKey = next === "key";
    }
  }

  /** Reads `"key" :` and notes whether the value after it may complete a result member. */
  private key(): boolean {
    const { text } = this;
    const start = this.i;
    const end = text.charCodeAt(start) === QUOTE ? skipString(text, start) : -1;
    if (end < 0) return false;
    if (!this.hinted && this.depth <= 2) {
      this.watched = keyKind(text.slice(start + 1, end - 1), this.depth, this.stack[0] ?? 0);
    }
    const colon = skipSpace(text, end);
    if (text.charCodeAt(colon) !== COLON) return false;
    this.i = skipSpace(text, colon + 1);
    return true;
  }

  /** Enters a container; false when it is empty (`{}`, `[]`) and so already a whole value. */
  private open(c: number): boolean {
    this.watched = 0;
    if (this.depth === this.stack.length) {
      const bigger = new Uint8Array(this.stack.length * 2);
      bigger.set(this.stack);
      this.stack = bigger;
    }
    this.stack[this.depth] = c === OPEN_OBJECT ? OBJECT : ARRAY;
    this.depth += 1;
    this.i = skipSpace(this.text, this.i + 1);
    if (this.text.charCodeAt(this.i) !== (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return true;
    this.depth -= 1;
    this.i += 1;
    return false;
  }

  /** Reads a string, a literal or a number. */
  private scalar(c: number): boolean {
    const { text } = this;
    const start = this.i;
    if (c === QUOTE) {
      const end = skipString(text, start);
      if (end < 0) return false;
      if ((this.watched & TYPE) !== 0) this.hinted ||= isResultString(text.slice(start + 1, end - 1));
      this.i = end;
      return true;
    }
    const literal = LITERALS[c];
    if (literal !== undefined) {
      if (!text.startsWith(literal, start)) return false;
      if ((this.watched & IS_ERROR) !== 0 && literal !== "null") this.hinted = true;
      this.i = start + literal.length;
      return true;
    }
    NUMBER.lastIndex = start;
    if (!NUMBER.test(text)) return false;
    this.i = NUMBER.lastIndex;
    return true;
  }

  /** After a value: closes containers until a comma asks for the next value or key, or the text ends. */
  private close(): "value" | "key" | "end" | "invalid" {
    const { text } = this;
    for (;;) {
      this.i = skipSpace(text, this.i);
      if (this.depth === 0) return "end";
      const inObject = this.stack[this.depth - 1] === OBJECT;
      const next = text.charCodeAt(this.i);
      if (next === COMMA) {
        this.i = skipSpace(text, this.i + 1);
        return inObject ? "key" : "value";
      }
      if (next !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) return "invalid";
      this.depth -= 1;
      this.i += 1;
    }
  }
}

/** Which member of a result a key (its text between the quotes) may start at this depth. */
function keyKind(raw: string, depth: number, outer: number): number {
  if (raw.includes("\\")) return TYPE | IS_ERROR;
  if (raw === "type" && (depth === 1 || outer === ARRAY)) return TYPE;
  return raw === "is_error" && depth === 1 ? IS_ERROR : 0;
}

/** Whether a string (its text between the quotes) may be `result`. */
function isResultString(raw: string): boolean {
  return raw === "result" || raw.includes("\\");
}

/** The index after JSON whitespace (space, tab, line feed, carriage return) from `at`. */
function skipSpace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i += 1;
  }
}

/** The index after the JSON string that opens at `at`, or -1 when it is not a valid one. */
function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const escaped = text.charCodeAt(i + 1);
      HEX4.lastIndex = i + 2;
      if (escaped === 0x75 /* u */ && HEX4.test(text)) i += 5;
      else if (ESCAPABLE.has(escaped)) i += 1;
      else return -1;
    }
  }
  return -1;
}
