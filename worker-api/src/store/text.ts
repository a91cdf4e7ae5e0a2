import { InvalidInput, type JsonObject, type JsonValue } from "@whilly/core";

/**
 * Postgres `text` and `jsonb` cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 encoding
 * (node-postgres silently turns it into U+FFFD, jsonb refuses its `\ud800` escape). Plan content is
 * checked with {@link assertStorable} and refused with a message naming the field; free-form event text
 * (agent output, reasons) goes through {@link storableJson} and is stored with U+FFFD in their place.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");
const NUL = String.fromCharCode(0);

/** Why Postgres cannot store `text`, or `undefined` when it can. */
export function unstorableReason(text: string): string | undefined {
  if (text.includes(NUL)) return "contains a NUL character (\\u0000), which Postgres text cannot hold";
  if (LONE_SURROGATE.test(text)) return "contains a lone UTF-16 surrogate, which is not valid Unicode text";
  return undefined;
}

/**
 * Checks every string in `value` (object keys included).
 * @param field names the value in the error, e.g. `tasks[T-1].description`.
 * @throws {InvalidInput} naming the field and the character at fault.
 */
export function assertStorable(value: JsonValue | readonly JsonValue[], field: string): void {
  if (typeof value === "string") {
    const reason = unstorableReason(value);
    if (reason !== undefined) throw new InvalidInput(field, `${field} ${reason}`);
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) assertStorable(item, `${field}[${i}]`);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      assertStorable(key, `${field} key`);
      assertStorable(item, `${field}.${key}`);
    }
  }
}

/** `text` with NUL characters and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.split(NUL).join("\uFFFD").replace(LONE_SURROGATES, "\uFFFD");
}

/** A deep copy of `value` whose strings and keys are all storable (see {@link storableText}). */
export function storableJson<T extends JsonValue>(value: T): T;
export function storableJson(value: JsonValue): JsonValue {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map((item) => storableJson(item));
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[storableText(key)] = storableJson(item);
    return out;
  }
  return value;
}
