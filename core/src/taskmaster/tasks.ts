import type { JsonObject } from "../model.js";
import { isPlainObject } from "../plan/json-values.js";
import { show } from "../plan/text.js";
import type { Entry } from "./entries.js";
import type { Problems } from "./problems.js";

/** Taskmaster task fields the import turns into whilly's; every other field is kept under its name. */
const CONSUMED = new Set([
  "id",
  "status",
  "priority",
  "dependencies",
  "description",
  "details",
  "testStrategy",
  "acceptanceCriteria",
  "subtasks",
]);
/** whilly task fields the import writes itself, so the file's own value is added to, not copied. */
const WRITTEN = new Set([
  "id",
  "status",
  "priority",
  "description",
  "dependencies",
  "key_files",
  "acceptance_criteria",
]);
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+/;

/**
 * The whilly task for `entry` (docs/taskmaster.md, "Fields"): description from title, description
 * and details; acceptance criteria from `acceptanceCriteria` and `testStrategy`; key files from
 * `relevantFiles`; `taskmaster_status` when the status was mapped, `parent_task` on a subtask. A
 * whilly field the file already gives (`test_steps`, `max_attempts`, ...) is used as whilly's;
 * everything else is kept under its own name.
 */
export function whillyTask(entry: Entry, dependencies: readonly string[], problems: Problems): JsonObject {
  const raw = entry.raw;
  const keyFiles = relevantPaths(entry, problems);
  const criteria = [...acceptanceCriteria(entry, problems), ...testStrategy(raw.testStrategy)];
  const kept: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (CONSUMED.has(key) || WRITTEN.has(key) || value === undefined) continue;
    kept[key] = value as JsonObject[string];
  }
  return {
    ...(entry.mapped ? { taskmaster_status: entry.mapped.from } : {}),
    ...(entry.parent ? { parent_task: entry.parent.id } : {}),
    ...kept,
    id: entry.id,
    status: entry.status,
    priority: entry.priority,
    description: description(entry),
    dependencies: [...dependencies],
    key_files: merged(keyFiles, raw.key_files),
    acceptance_criteria: merged(criteria, raw.acceptance_criteria),
  } as JsonObject;
}

/** `<title>`, a blank line, the description, then `Details:` and the details; a subtask names its parent. */
function description(entry: Entry): string {
  const text = (key: string) => {
    const value = entry.raw[key];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  const details = text("details");
  const parts = [
    text("title"),
    text("description"),
    details === undefined ? undefined : `Details:\n${details}`,
  ];
  const parent = entry.parent;
  if (parent !== undefined) {
    const title = typeof parent.raw.title === "string" ? `: ${parent.raw.title.trim()}` : "";
    parts.push(`Part of task ${parent.id}${title}.`);
  }
  if (entry.children.length > 0) {
    const ids = entry.children.map((child) => child.id).join(", ");
    parts.push(
      `Its subtasks (${ids}) come first, as tasks of their own; this task finishes what they leave and checks that the parts work together.`,
    );
  }
  return parts.filter((part) => part !== undefined).join("\n\n");
}

/** `acceptanceCriteria`: a list of strings, or one text read as one criterion per line (bullets dropped). */
function acceptanceCriteria(entry: Entry, problems: Problems): string[] {
  const value = entry.raw.acceptanceCriteria;
  if (value === undefined || value === null) return [];
  if (typeof value === "string") {
    return value
      .split("\n")
      .map((line) => line.replace(BULLET, "").trim())
      .filter((line) => line !== "");
  }
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.map((item) => item.trim()).filter((item) => item !== "");
  }
  problems.add(
    [...entry.path, "acceptanceCriteria"],
    entry.label,
    `'acceptanceCriteria' must be a list of strings or a text; got ${show(value)}`,
  );
  return [];
}

/** `testStrategy` is prose for a person, so it becomes a criterion, never a command whilly runs. */
function testStrategy(value: unknown): string[] {
  return typeof value === "string" && value.trim() !== "" ? [`Test strategy: ${value.trim()}`] : [];
}

/** The paths of `relevantFiles` (`[{path, description, action}]`, or plain paths). */
function relevantPaths(entry: Entry, problems: Problems): string[] {
  const value = entry.raw.relevantFiles;
  if (value === undefined || value === null) return [];
  const at = [...entry.path, "relevantFiles"];
  if (!Array.isArray(value)) {
    problems.add(
      at,
      entry.label,
      `'relevantFiles' must be a list of {"path": ...} objects; got ${show(value)}`,
    );
    return [];
  }
  const paths: string[] = [];
  value.forEach((item, index) => {
    const path =
      typeof item === "string"
        ? item
        : isPlainObject(item) && typeof item.path === "string"
          ? item.path
          : undefined;
    if (path !== undefined && path.trim() !== "") paths.push(path.trim());
    else {
      problems.add(
        [...at, index],
        entry.label,
        `a relevant file must be {"path": "src/app.ts", ...} or a path; got ${show(item)}`,
      );
    }
  });
  return paths;
}

/** The import's list followed by the file's own whilly list of that name; repeats dropped. */
function merged(made: readonly string[], own: unknown): unknown {
  if (own === undefined || own === null) return [...new Set(made)];
  if (!Array.isArray(own)) return own;
  return [...new Set([...made, ...own])];
}
