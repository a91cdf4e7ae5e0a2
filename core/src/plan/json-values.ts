import type { JsonValue } from "../model.js";
import { fieldName, type Segment } from "./issues.js";
import { MAX_NESTING } from "./limits.js";
import { show, unstorableText } from "./text.js";

/** Receives one problem: the path (relative to where the scan began) and a complete sentence. */
export type Report = (path: readonly Segment[], message: string) => void;

/**
 * Checks that `value` is JSON the store can keep, reporting every string or key with text Postgres
 * cannot store, every non-JSON value (`undefined` in an array, functions, `NaN`, class instances,
 * circular references) and nesting deeper than {@link MAX_NESTING}. Object properties holding
 * `undefined` count as absent, as `JSON.stringify` treats them. `path` names `value` in messages.
 * @returns true when nothing was reported.
 */
export function scanJson(value: unknown, path: readonly Segment[], report: Report): boolean {
  let clean = true;
  const note: Report = (where, message) => {
    clean = false;
    report(where, message);
  };
  walk(value, [...path], note, new Set());
  return clean;
}

/** True for `{}`-style objects: what `JSON.parse` makes, not arrays or class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Copies a value {@link scanJson} accepted, dropping `undefined` properties. */
export function toJson(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(toJson);
  if (isPlainObject(value)) {
    // fromEntries defines own properties, so a "__proto__" key stays data instead of a prototype.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, toJson(item)]),
    );
  }
  return value as JsonValue;
}

function walk(value: unknown, path: Segment[], report: Report, ancestors: Set<object>): void {
  if (typeof value === "string") {
    const problem = unstorableText(value);
    if (problem) report(path, `${fieldName(path)} ${problem}`);
    return;
  }
  if (value === null || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) report(path, `${fieldName(path)} is not a JSON value; got ${value}`);
    return;
  }
  if (typeof value !== "object") {
    report(path, `${fieldName(path)} is not a JSON value; got ${show(value)}`);
    return;
  }
  if (ancestors.has(value)) {
    report(path, `${fieldName(path)} contains itself (a circular reference)`);
    return;
  }
  if (ancestors.size >= MAX_NESTING) {
    report(path, `${fieldName(path)} is nested more than ${MAX_NESTING} levels deep`);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) walkArray(value, path, report, ancestors);
  else if (isPlainObject(value)) walkObject(value, path, report, ancestors);
  else report(path, `${fieldName(path)} is not a JSON value; got an instance of ${value.constructor?.name}`);
  ancestors.delete(value);
}

function walkArray(value: unknown[], path: Segment[], report: Report, ancestors: Set<object>): void {
  for (let index = 0; index < value.length; index++) {
    const item = value[index];
    const itemPath = [...path, index];
    if (item === undefined) report(itemPath, `${fieldName(itemPath)} is not a JSON value; got nothing`);
    else walk(item, itemPath, report, ancestors);
  }
}

function walkObject(
  value: Record<string, unknown>,
  path: Segment[],
  report: Report,
  ancestors: Set<object>,
): void {
  for (const [key, item] of Object.entries(value)) {
    const problem = unstorableText(key);
    if (problem) {
      const where = path.length === 0 ? "a key" : `a key in ${fieldName(path)}`;
      report([...path, key], `${where} (${show(key)}) ${problem}`);
      continue;
    }
    if (item !== undefined) walk(item, [...path, key], report, ancestors);
  }
}
