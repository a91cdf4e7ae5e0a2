import type { JsonObject, TaskSpec } from "../model.js";
import { PRIORITIES, TASK_STATUSES } from "../task-status.js";
import { readAgentFields, readRequiredTags } from "./agent-fields.js";
import { fieldName, type IssueList, type TaskScope } from "./issues.js";
import { isPlainObject, scanJson, toJson } from "./json-values.js";
import { MAX_DESCRIPTION_BYTES, MAX_VERSION } from "./limits.js";
import { readMaxAttempts } from "./run-fields.js";
import { idProblem, show, utf8Length } from "./text.js";

/** The task fields whilly knows; every other key of a task is kept in `extra`. */
export const TASK_FIELDS = [
  "id",
  "status",
  "priority",
  "description",
  "dependencies",
  "key_files",
  "acceptance_criteria",
  "test_steps",
  "prd_requirement",
  "max_attempts",
  "agent",
  "model",
  "required_tags",
  "version",
] as const;

const KNOWN = new Set<string>(TASK_FIELDS);

/**
 * What the plan-level checks need from one entry of `tasks`, even when other fields are wrong:
 * its usable id and its dependency list. `spec` is set only when the entry had no problem at all.
 */
export type ParsedTask = {
  readonly scope: TaskScope;
  readonly dependencies: readonly string[] | undefined;
  readonly spec: TaskSpec | undefined;
};

/**
 * Validates and normalises `tasks[index]` (docs/plan-format.md, "Tasks"): status upper-cased, priority
 * lower-cased, optional lists default to `[]`, `prd_requirement` to `""`, `version` to 0, `max_attempts`
 * (1 to `MAX_MAX_ATTEMPTS`, a numeric string accepted) to none (the plan's applies); `agent`, `model`
 * and `required_tags` (see `readAgentFields`, `readRequiredTags`) left out when absent; unknown fields
 * go to `extra`. Every problem is added to `issues`, named by field and task.
 */
export function parseTask(raw: unknown, index: number, issues: IssueList): ParsedTask {
  if (!isPlainObject(raw)) {
    const scope = { index, id: undefined };
    issues.task(scope, [], `must be a JSON object; got ${show(raw)}`);
    return { scope, dependencies: undefined, spec: undefined };
  }
  const idValue = raw.id;
  const scope: TaskScope = { index, id: typeof idValue === "string" && idValue !== "" ? idValue : undefined };
  const before = issues.items.length;
  const report = (path: readonly (string | number)[], message: string) => issues.task(scope, path, message);

  scanJson(raw, [], report);
  const id = readId(idValue, scope, issues);
  const status = readChoice(raw, "status", TASK_STATUSES, (v) => v.toUpperCase(), scope, issues);
  const priority = readChoice(raw, "priority", PRIORITIES, (v) => v.toLowerCase(), scope, issues);
  const description = readDescription(raw.description, scope, issues);
  const dependencies = readStrings(raw, "dependencies", scope, issues);
  const keyFiles = readStrings(raw, "key_files", scope, issues);
  const acceptanceCriteria = readStrings(raw, "acceptance_criteria", scope, issues);
  const testSteps = readStrings(raw, "test_steps", scope, issues);
  const prdRequirement = readOptionalString(raw, "prd_requirement", scope, issues);
  const maxAttempts = readMaxAttempts(raw.max_attempts, "task", report);
  const { fields: choice } = readAgentFields(raw, "task", report);
  const requiredTags = readRequiredTags(raw.required_tags, report);
  const version = readVersion(raw.version, scope, issues);
  if (dependencies) reportRepeats(dependencies, scope, issues);

  const complete =
    issues.items.length === before &&
    id !== undefined &&
    status !== undefined &&
    priority !== undefined &&
    description !== undefined &&
    dependencies !== undefined &&
    keyFiles !== undefined &&
    acceptanceCriteria !== undefined &&
    testSteps !== undefined &&
    prdRequirement !== undefined &&
    version !== undefined;
  const spec: TaskSpec | undefined = complete
    ? {
        id,
        status,
        priority,
        description,
        dependencies,
        keyFiles,
        acceptanceCriteria,
        testSteps,
        prdRequirement,
        ...(maxAttempts ? { maxAttempts } : {}),
        ...choice,
        ...(requiredTags ? { requiredTags } : {}),
        version,
        extra: extraFields(raw),
      }
    : undefined;
  return { scope, dependencies, spec };
}

/** The fields whilly does not know, copied; only called once the whole task scanned clean. */
function extraFields(raw: Record<string, unknown>): JsonObject {
  return Object.fromEntries(
    Object.entries(raw)
      .filter(([key, value]) => !KNOWN.has(key) && value !== undefined)
      .map(([key, value]) => [key, toJson(value)]),
  );
}

function readId(value: unknown, scope: TaskScope, issues: IssueList): string | undefined {
  if (value === undefined) {
    issues.task(scope, ["id"], "missing required field 'id'");
    return undefined;
  }
  if (typeof value !== "string" || value === "") {
    issues.task(scope, ["id"], `'id' must be a non-empty string; got ${show(value)}`);
    return undefined;
  }
  const problem = idProblem(value);
  if (problem) {
    issues.task(scope, ["id"], `'id' ${problem}`);
    return undefined;
  }
  return value;
}

function readChoice<T extends string>(
  raw: Record<string, unknown>,
  field: string,
  choices: readonly T[],
  normalise: (value: string) => string,
  scope: TaskScope,
  issues: IssueList,
): T | undefined {
  const value = raw[field];
  const expected = `must be one of ${choices.join(", ")}`;
  if (value === undefined) {
    issues.task(scope, [field], `missing required field '${field}' (${expected.replace("must be ", "")})`);
    return undefined;
  }
  const normal = typeof value === "string" ? normalise(value) : undefined;
  if (normal === undefined || !(choices as readonly string[]).includes(normal)) {
    issues.task(scope, [field], `'${field}' ${expected}; got ${show(value)}`);
    return undefined;
  }
  return normal as T;
}

function readDescription(value: unknown, scope: TaskScope, issues: IssueList): string | undefined {
  if (value === undefined) {
    issues.task(scope, ["description"], "missing required field 'description' (a string, may be empty)");
    return undefined;
  }
  if (typeof value !== "string") {
    issues.task(scope, ["description"], `'description' must be a string; got ${show(value)}`);
    return undefined;
  }
  const bytes = utf8Length(value);
  if (bytes > MAX_DESCRIPTION_BYTES) {
    issues.task(
      scope,
      ["description"],
      `'description' is ${bytes} bytes long in UTF-8; the limit is ${MAX_DESCRIPTION_BYTES} (64 KiB)`,
    );
    return undefined;
  }
  return value;
}

function readStrings(
  raw: Record<string, unknown>,
  field: string,
  scope: TaskScope,
  issues: IssueList,
): readonly string[] | undefined {
  const value = raw[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.task(scope, [field], `'${field}' must be a list of strings; got ${show(value)}`);
    return undefined;
  }
  let ok = true;
  value.forEach((item, index) => {
    if (typeof item === "string") return;
    ok = false;
    issues.task(scope, [field, index], `${fieldName([field, index])} must be a string; got ${show(item)}`);
  });
  return ok ? (value as string[]).slice() : undefined;
}

function readOptionalString(
  raw: Record<string, unknown>,
  field: string,
  scope: TaskScope,
  issues: IssueList,
): string | undefined {
  const value = raw[field];
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  issues.task(scope, [field], `'${field}' must be a string; got ${show(value)}`);
  return undefined;
}

function readVersion(value: unknown, scope: TaskScope, issues: IssueList): number | undefined {
  if (value === undefined) return 0;
  const integer = typeof value === "number" && Number.isInteger(value) && value >= 0;
  if (integer && value <= MAX_VERSION) return value;
  const message = integer
    ? `'version' must be at most ${MAX_VERSION}, leaving room for the transitions that count up from it; got ${show(value)} (set it to 0 or leave it out)`
    : `'version' must be a non-negative integer; got ${show(value)}`;
  issues.task(scope, ["version"], message);
  return undefined;
}

function reportRepeats(dependencies: readonly string[], scope: TaskScope, issues: IssueList): void {
  const seen = new Set<string>();
  dependencies.forEach((dep, index) => {
    if (seen.has(dep)) {
      issues.task(scope, ["dependencies", index], `'dependencies' lists ${show(dep)} more than once`);
    }
    seen.add(dep);
  });
}
