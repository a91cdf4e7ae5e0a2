import type { BlockedTask, TaskStatus } from "@whilly/core";

/** Statuses a dependency can end in without ever becoming `DONE`. */
const DEAD_ENDS: readonly TaskStatus[] = ["FAILED", "SKIPPED"];

/**
 * Finds the `PENDING` tasks that can never become ready: a dependency ended `FAILED` or `SKIPPED`, or
 * is itself a `PENDING` task blocked that way (transitively). Each is reported with the dead-end tasks
 * at the root of its blockage. Claimed or running dependencies may still finish, so they block nothing.
 * @param statuses every task of the plan by id. @param dependencies task id → its dependency ids.
 * @returns blocked tasks ordered by id (byte order), each with sorted root blockers.
 */
export function findBlocked(
  statuses: ReadonlyMap<string, TaskStatus>,
  dependencies: ReadonlyMap<string, readonly string[]>,
): BlockedTask[] {
  const roots = new Map<string, ReadonlySet<string>>();
  const visiting = new Set<string>();

  const rootsOf = (taskId: string): ReadonlySet<string> => {
    const known = roots.get(taskId);
    if (known) return known;
    const found = new Set<string>();
    // A cycle cannot be imported; the guard only keeps a corrupt graph from recursing forever.
    if (visiting.has(taskId)) return found;
    visiting.add(taskId);
    for (const dep of dependencies.get(taskId) ?? []) {
      const status = statuses.get(dep);
      if (status !== undefined && DEAD_ENDS.includes(status)) found.add(dep);
      else if (status === "PENDING") for (const root of rootsOf(dep)) found.add(root);
    }
    visiting.delete(taskId);
    roots.set(taskId, found);
    return found;
  };

  const blocked: BlockedTask[] = [];
  for (const taskId of [...statuses.keys()].sort(byteOrder)) {
    if (statuses.get(taskId) !== "PENDING") continue;
    const found = rootsOf(taskId);
    if (found.size > 0) blocked.push({ taskId, blockedBy: [...found].sort(byteOrder) });
  }
  return blocked;
}

/**
 * Orders ids by UTF-16 code unit, as Postgres `COLLATE "C"` orders them by UTF-8 byte (the two differ
 * only between characters above U+FFFF and those in U+E000-U+FFFF).
 */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
