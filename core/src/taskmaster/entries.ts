import type { Segment } from "../plan/issues.js";
import { isPlainObject } from "../plan/json-values.js";
import { show } from "../plan/text.js";
import type { Priority, TaskStatus } from "../task-status.js";
import type { Problems } from "./problems.js";
import { mapPriority, mapStatus, TASKMASTER_PRIORITIES, TASKMASTER_STATUSES } from "./statuses.js";

/** One Taskmaster task or subtask, checked, before its dependencies are resolved. */
export type Entry = {
  /** The whilly task id: the task's id, or `<parent>.<subtask>` for a subtask. */
  readonly id: string;
  /** Where it is in the file, e.g. `["master", "tasks", 2, "subtasks", 0]`. */
  readonly path: readonly Segment[];
  /** `task 3` or `subtask 3.2`, for messages. */
  readonly label: string;
  readonly raw: Readonly<Record<string, unknown>>;
  readonly parent: Entry | undefined;
  readonly status: TaskStatus;
  /** The file's status, lower case, when whilly's means something else; else `undefined`. */
  readonly mapped: { readonly from: string; readonly why: string } | undefined;
  readonly priority: Priority;
  /** The file's dependency references as written (numbers as their digits), with their index. */
  readonly references: readonly { readonly ref: string; readonly index: number }[];
  /** Its subtasks' entries (none for a subtask). */
  readonly children: Entry[];
};

const DEFAULT_PRIORITY: Priority = "medium";

/**
 * Reads `tasks` (at `path`) and every task's `subtasks` into entries, parents before their
 * subtasks, reporting every malformed id, status, priority, dependency list or subtask list.
 */
export function readEntries(
  tasks: readonly unknown[],
  path: readonly Segment[],
  problems: Problems,
): Entry[] {
  const entries: Entry[] = [];
  tasks.forEach((raw, index) => {
    const entry = readEntry(raw, [...path, index], undefined, problems);
    if (entry === undefined) return;
    entries.push(entry);
    const subtasks = entry.raw.subtasks;
    if (subtasks === undefined || subtasks === null) return;
    if (!Array.isArray(subtasks)) {
      problems.add(
        [...entry.path, "subtasks"],
        entry.label,
        `must be a list of subtasks; got ${show(subtasks)}`,
      );
      return;
    }
    subtasks.forEach((sub, subIndex) => {
      const child = readEntry(sub, [...entry.path, "subtasks", subIndex], entry, problems);
      if (child === undefined) return;
      entry.children.push(child);
      entries.push(child);
    });
  });
  return entries;
}

function readEntry(
  raw: unknown,
  path: readonly Segment[],
  parent: Entry | undefined,
  problems: Problems,
): Entry | undefined {
  const kind = parent === undefined ? "task" : "subtask";
  if (!isPlainObject(raw)) {
    problems.add(path, undefined, `a ${kind} must be a JSON object; got ${show(raw)}`);
    return undefined;
  }
  const own = readId(raw.id, path, kind, problems);
  if (own === undefined) return undefined;
  const id = parent === undefined || own.startsWith(`${parent.id}.`) ? own : `${parent.id}.${own}`;
  const label = `${kind} ${id}`;
  const status = readStatus(raw.status, [...path, "status"], label, problems);
  const priority = readPriority(raw.priority, parent?.priority, [...path, "priority"], label, problems);
  const references = readReferences(raw.dependencies, [...path, "dependencies"], label, problems);
  checkTexts(raw, path, label, problems);
  return {
    id,
    path,
    label,
    raw,
    parent,
    status: status?.to ?? "PENDING",
    mapped: status?.why === undefined ? undefined : { from: status.from, why: status.why },
    priority: priority ?? DEFAULT_PRIORITY,
    references,
    children: [],
  };
}

/** A task id: a whole number (older files) or a non-blank string (newer ones), as text. */
function readId(
  value: unknown,
  path: readonly Segment[],
  kind: string,
  problems: Problems,
): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  const problem =
    value === undefined ? "is missing" : `must be a whole number or a non-blank string; got ${show(value)}`;
  problems.add([...path, "id"], undefined, `the ${kind}'s 'id' ${problem}; give it an id, e.g. "id": 1`);
  return undefined;
}

function readStatus(
  value: unknown,
  path: readonly Segment[],
  label: string,
  problems: Problems,
): { to: TaskStatus; from: string; why: string | undefined } | undefined {
  if (value === undefined || value === null) return undefined;
  const rule = typeof value === "string" ? mapStatus(value) : undefined;
  if (typeof value === "string" && rule !== undefined) {
    return { to: rule.to, from: value.trim().toLowerCase(), why: rule.why };
  }
  problems.add(path, label, `'status' must be one of ${TASKMASTER_STATUSES.join(", ")}; got ${show(value)}`);
  return undefined;
}

/** A task's priority; a subtask without one takes its parent's, a task without one `medium`. */
function readPriority(
  value: unknown,
  inherited: Priority | undefined,
  path: readonly Segment[],
  label: string,
  problems: Problems,
): Priority | undefined {
  if (value === undefined || value === null) return inherited;
  const priority = typeof value === "string" ? mapPriority(value) : undefined;
  if (priority !== undefined) return priority;
  problems.add(
    path,
    label,
    `'priority' must be one of ${TASKMASTER_PRIORITIES.join(", ")}; got ${show(value)}`,
  );
  return inherited;
}

function readReferences(
  value: unknown,
  path: readonly Segment[],
  label: string,
  problems: Problems,
): { ref: string; index: number }[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(
      path,
      label,
      `'dependencies' must be a list of task ids, e.g. [1, "3.2"]; got ${show(value)}`,
    );
    return [];
  }
  const references: { ref: string; index: number }[] = [];
  value.forEach((item, index) => {
    if (typeof item === "number" && Number.isSafeInteger(item) && item >= 0) {
      references.push({ ref: String(item), index });
    } else if (typeof item === "string" && item.trim() !== "") {
      references.push({ ref: item.trim(), index });
    } else {
      problems.add(
        [...path, index],
        label,
        `a dependency must be a task id (a whole number, or a string such as "3" or "3.2"); got ${show(item)}`,
      );
    }
  });
  return references;
}

const TEXTS = ["title", "description", "details", "testStrategy"] as const;

/** The text fields are strings when present (`null` counts as absent). */
function checkTexts(
  raw: Record<string, unknown>,
  path: readonly Segment[],
  label: string,
  problems: Problems,
) {
  for (const field of TEXTS) {
    const value = raw[field];
    if (value === undefined || value === null || typeof value === "string") continue;
    problems.add([...path, field], label, `'${field}' must be a string; got ${show(value)}`);
  }
}
