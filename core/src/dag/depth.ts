import { type DagTask, dependencyEdges, dependencyOrder } from "./graph.js";

/**
 * The topological depth of every task: the length of the longest dependency chain below it, so a task
 * with no in-plan dependencies is 0 and every task is deeper than each of its dependencies (spec 1.6).
 * Tasks on a cycle, or depending on one, have no such depth; they get one more than the deepest other
 * task so a listing still shows them, last.
 * @returns depth by task id, for every distinct id in `tasks`.
 */
export function topologicalDepth(tasks: readonly DagTask[]): Map<string, number> {
  const edges = dependencyEdges(tasks);
  const depth = new Map<string, number>();
  let deepest = -1;
  for (const id of dependencyOrder(edges)) {
    let own = 0;
    for (const dep of edges.get(id) ?? []) own = Math.max(own, (depth.get(dep) ?? 0) + 1);
    depth.set(id, own);
    deepest = Math.max(deepest, own);
  }
  for (const id of edges.keys()) if (!depth.has(id)) depth.set(id, deepest + 1);
  return depth;
}
