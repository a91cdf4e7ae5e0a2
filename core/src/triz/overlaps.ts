import { compareIds } from "../dag/compare.js";
import type { TrizFinding, TrizTask } from "./types.js";

/** Groups of tasks that overlap: duplicates (same normalised description) and shared key files. */
export type Overlaps = {
  /** Each sorted by id, in order of their first task in the plan. */
  readonly duplicates: readonly (readonly string[])[];
  /** Each sorted by id, with the key files its tasks share, in order of the file's first mention. */
  readonly sharedFiles: readonly { readonly taskIds: readonly string[]; readonly files: readonly string[] }[];
};

/**
 * A description's comparison key: lower case, every run of characters other than letters and digits
 * (any script) collapsed to one space, trimmed. Empty for a description with no letters or digits.
 */
export function normaliseDescription(description: string): string {
  return description
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Finds the {@link Overlaps} of a plan's tasks; a repeated task id counts once. */
export function findOverlaps(tasks: readonly TrizTask[]): Overlaps {
  const byDescription = new Map<string, Set<string>>();
  const byFile = new Map<string, Set<string>>();
  for (const task of tasks) {
    const key = normaliseDescription(task.description);
    if (key !== "") addTo(byDescription, key, task.id);
    for (const file of task.keyFiles) {
      const path = file.trim();
      if (path !== "") addTo(byFile, path, task.id);
    }
  }
  const duplicates = [...byDescription.values()].filter((ids) => ids.size > 1).map(sortedIds);
  const groups = new Map<string, { taskIds: string[]; files: string[] }>();
  for (const [file, ids] of byFile) {
    if (ids.size < 2) continue;
    const taskIds = sortedIds(ids);
    const key = JSON.stringify(taskIds);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { taskIds, files: [file] });
    else group.files.push(file);
  }
  return { duplicates, sharedFiles: [...groups.values()] };
}

/** `duplicate_work` (medium, principle 5, merging): one finding per group of duplicates. */
export function duplicateFindings(overlaps: Overlaps): TrizFinding[] {
  return overlaps.duplicates.map((taskIds) => ({
    severity: "medium",
    category: "duplicate_work",
    taskIds,
    title: `${taskIds.length} tasks have the same description`,
    recommendation:
      "merge them into one task, or rewrite their descriptions and acceptance criteria so each owns a distinct result",
    trizPrinciple: 5,
  }));
}

/**
 * `resource_conflict` (medium, principle 5, merging): one finding per group of tasks sharing key
 * files. whilly never runs two such tasks at once, so they also run one after the other.
 */
export function sharedFileFindings(overlaps: Overlaps): TrizFinding[] {
  return overlaps.sharedFiles.map(({ taskIds, files }) => ({
    severity: "medium",
    category: "resource_conflict",
    taskIds,
    title: `${taskIds.length} tasks share key file${files.length === 1 ? "" : "s"} ${files.map((f) => `'${f}'`).join(", ")}`,
    recommendation: "order them with explicit dependencies, or combine them into one task that owns the file",
    trizPrinciple: 5,
  }));
}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  const ids = map.get(key);
  if (ids === undefined) map.set(key, new Set([id]));
  else ids.add(id);
}

function sortedIds(ids: ReadonlySet<string>): string[] {
  return [...ids].sort(compareIds);
}
