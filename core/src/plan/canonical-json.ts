import { compareIds } from "../dag/compare.js";
import type { JsonValue } from "../model.js";

/**
 * Serialises `value` canonically: keys sorted by code point at every level, two-space indent, empty
 * containers as `[]` and `{}`, non-ASCII text kept as is. Unlike `JSON.stringify`, integer-like keys
 * are sorted as text too, so the order never depends on how JavaScript stores an object.
 * @returns the JSON text, without a trailing newline.
 */
export function canonicalJson(value: JsonValue): string {
  return write(value, "");
}

function write(value: JsonValue, indent: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => inner + write(item, inner)).join(",\n")}\n${indent}]`;
  }
  const keys = Object.keys(value).sort(compareIds);
  if (keys.length === 0) return "{}";
  const entries = keys.map((key) => `${inner}${JSON.stringify(key)}: ${write(value[key] ?? null, inner)}`);
  return `{\n${entries.join(",\n")}\n${indent}}`;
}
