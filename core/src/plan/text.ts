import { MAX_ID_LENGTH } from "./limits.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// C0 controls other than NUL (reported as unstorable text), DEL and the C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are escaped before a message shows them.
const CONTROL_OR_NUL = /[\u0000-\u001f\u007f-\u009f]/;
const ESCAPED_IN_MESSAGES = new RegExp(`${CONTROL_OR_NUL.source}|${LONE_SURROGATE.source}`, "g");

/**
 * Why Postgres cannot store `text`, or `undefined` when it can: `TEXT` and `JSONB` refuse the NUL
 * character, and a lone UTF-16 surrogate has no UTF-8 encoding.
 */
export function unstorableText(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `contains a NUL character (\\u0000) at offset ${nul}, which Postgres cannot store`;
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    return `contains a lone UTF-16 surrogate (${escapeUnit(lone[0])}) at offset ${lone.index}, which is not valid Unicode text`;
  }
  return undefined;
}

/**
 * What is wrong with `id` as a plan or task id, or `undefined` when nothing is. Ids may hold spaces and
 * any non-ASCII text, but not control characters, surrounding whitespace or more than
 * {@link MAX_ID_LENGTH} UTF-16 code units. NUL is left to {@link unstorableText}.
 */
export function idProblem(id: string): string | undefined {
  if (id.trim() === "") return "must not be empty or blank";
  if (id.length > MAX_ID_LENGTH) return `must be at most ${MAX_ID_LENGTH} characters long; got ${id.length}`;
  const control = CONTROL.exec(id);
  if (control) {
    return `must not contain control characters; found ${escapeUnit(control[0])} at offset ${control.index}`;
  }
  if (id.trim() !== id) return "must not start or end with whitespace";
  // URLs normalise '.' and '..' path segments away, so such a task could never be reported over HTTP.
  if (id === "." || id === "..") return "must not be '.' or '..' (they cannot stand in a URL path)";
  return undefined;
}

/** The length of `text` in UTF-8 bytes (a lone surrogate counts 3, as its replacement character would). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * A value as a message shows it: strings quoted, control characters and lone surrogates escaped, and
 * long strings cut to 80 characters; other values by kind (`an array`, `an object`) or literally.
 */
export function show(value: unknown): string {
  if (typeof value === "string") {
    const chars = [...value];
    const cut = chars.length > 80 ? `${chars.slice(0, 80).join("")}…` : value;
    return `'${cut.replace(ESCAPED_IN_MESSAGES, escapeUnit)}'`;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (value === undefined) return "nothing";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `a ${typeof value}`;
}

function escapeUnit(unit: string): string {
  return `\\u${(unit.charCodeAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}
