import type { TaskStatus } from "../task-status.js";
import { compareIds } from "./compare.js";

/** The least a DAG function needs of a task: its id and the ids it depends on. */
export type DagTask = { readonly id: string; readonly dependencies: readonly string[] };

/** A {@link DagTask} with its status, for readiness and blockage. */
export type DagTaskWithStatus = DagTask & { readonly status: TaskStatus };

/**
 * The plan's dependency edges as adjacency lists keyed by task id: `edges.get(a)` holds the in-plan
 * ids `a` depends on, sorted and without repeats. Ids not in the plan are dropped, and a repeated task
 * id keeps its first entry, so every function here sees the same graph.
 */
export function dependencyEdges(tasks: readonly DagTask[]): Map<string, string[]> {
  const ids = new Set(tasks.map((task) => task.id));
  const edges = new Map<string, string[]>();
  for (const task of tasks) {
    if (edges.has(task.id)) continue;
    const inPlan = new Set(task.dependencies.filter((dep) => ids.has(dep)));
    edges.set(task.id, [...inPlan].sort(compareIds));
  }
  return edges;
}

/**
 * The ids of `edges` with every dependency before its dependents (Kahn's algorithm, in first-seen
 * order). Tasks on a cycle, or depending on one, never become free and are left out.
 */
export function dependencyOrder(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [id, deps] of edges) {
    waiting.set(id, deps.length);
    for (const dep of deps) {
      const list = dependents.get(dep);
      if (list === undefined) dependents.set(dep, [id]);
      else list.push(id);
    }
  }
  const order = [...edges.keys()].filter((id) => waiting.get(id) === 0);
  for (let head = 0; head < order.length; head++) {
    for (const dependent of dependents.get(order[head] as string) ?? []) {
      const left = (waiting.get(dependent) ?? 0) - 1;
      waiting.set(dependent, left);
      if (left === 0) order.push(dependent);
    }
  }
  return order;
}
