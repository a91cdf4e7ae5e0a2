import type { JsonValue, TaskSpec } from "@whilly/core";
import type { TaskRow } from "../rows.js";

/**
 * True when a stored task still says what the plan file says: description, priority, lists,
 * requirement, `max_attempts`, `agent`, `model`, `required_tags` and extra fields. Status, version and spend are queue state and are not compared.
 * Dependencies compare as sets (their order carries no meaning); JSON objects ignore key order, since
 * JSONB reorders keys.
 */
export function sameTaskSpec(row: TaskRow, spec: TaskSpec): boolean {
  return (
    row.description === spec.description &&
    row.priority === spec.priority &&
    row.prdRequirement === spec.prdRequirement &&
    (row.maxAttempts ?? undefined) === spec.maxAttempts &&
    (row.agent ?? undefined) === spec.agent &&
    (row.model ?? undefined) === spec.model &&
    jsonEqual(row.requiredTags, [...(spec.requiredTags ?? [])]) &&
    jsonEqual([...new Set(row.dependencies)].sort(), [...new Set(spec.dependencies)].sort()) &&
    jsonEqual(row.keyFiles, [...spec.keyFiles]) &&
    jsonEqual(row.acceptanceCriteria, [...spec.acceptanceCriteria]) &&
    jsonEqual(row.testSteps, [...spec.testSteps]) &&
    jsonEqual(row.extra, spec.extra)
  );
}

/** Deep equality of JSON values, ignoring object key order. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
    );
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && jsonEqual(a[key], b[key]));
}
