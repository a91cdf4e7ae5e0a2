import type { BlockedTask } from "../ports/task-store.js";
import { type Priority, priorityRank } from "../task-status.js";
import { compareIds } from "./compare.js";
import { type DagTaskWithStatus, dependencyEdges, dependencyOrder } from "./graph.js";

/**
 * The tasks a worker may claim now: `PENDING` with every dependency `DONE`, in claim order (priority,
 * most urgent first, then id). A dependency id not in the plan never counts as `DONE`, so its task is
 * never ready. Mirrors the store's claim filter, for local planning and for tests.
 */
export function readyTasks<T extends DagTaskWithStatus & { readonly priority: Priority }>(
  tasks: readonly T[],
): T[] {
  const status = new Map<string, string>();
  for (const task of tasks) if (!status.has(task.id)) status.set(task.id, task.status);
  return tasks
    .filter(
      (task) => task.status === "PENDING" && task.dependencies.every((dep) => status.get(dep) === "DONE"),
    )
    .sort((a, b) => priorityRank(a.priority) - priorityRank(b.priority) || compareIds(a.id, b.id));
}

/**
 * The `PENDING` tasks that can never run because a dependency, directly or through other blocked
 * tasks, ended `FAILED` or `SKIPPED`. `blockedBy` lists those failed or skipped roots. A dependency
 * still `CLAIMED` or `IN_PROGRESS` may yet finish, so it blocks nothing; cycles are ignored here
 * (the plan parser rejects them).
 * @returns blocked tasks ordered by id, each with its roots sorted.
 */
export function blockedTasks(tasks: readonly DagTaskWithStatus[]): BlockedTask[] {
  const edges = dependencyEdges(tasks);
  const status = new Map<string, string>();
  for (const task of tasks) if (!status.has(task.id)) status.set(task.id, task.status);

  const roots = new Map<string, Set<string>>();
  for (const id of dependencyOrder(edges)) {
    if (status.get(id) !== "PENDING") continue;
    const blockers = new Set<string>();
    for (const dep of edges.get(id) ?? []) {
      const depStatus = status.get(dep);
      if (depStatus === "FAILED" || depStatus === "SKIPPED") blockers.add(dep);
      else for (const root of roots.get(dep) ?? []) blockers.add(root);
    }
    if (blockers.size > 0) roots.set(id, blockers);
  }
  return [...roots]
    .map(([taskId, blockers]) => ({ taskId, blockedBy: [...blockers].sort(compareIds) }))
    .sort((a, b) => compareIds(a.taskId, b.taskId));
}
