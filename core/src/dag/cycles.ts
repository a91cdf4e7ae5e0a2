import { compareIds } from "./compare.js";
import { type DagTask, dependencyEdges } from "./graph.js";

/**
 * A dependency cycle as a closed walk along real edges, each arrow meaning "depends on": it starts and
 * ends at the cycle's smallest id, e.g. `["A", "B", "C", "A"]`; a self-loop is `["A", "A"]`. When
 * several cycles share tasks, the walk visits every task of that tangle, so an id may appear twice
 * (`["A", "B", "A", "C", "A"]`).
 */
export type DependencyCycle = readonly string[];

/**
 * Finds every dependency cycle: strongly connected components with more than one task, and tasks that
 * depend on themselves (Tarjan's algorithm, iterative so long chains cannot overflow the stack).
 * Dependency ids not in the plan are ignored.
 * @returns one {@link DependencyCycle} per component, sorted by its first id; empty for a DAG.
 */
export function detectCycles(tasks: readonly DagTask[]): DependencyCycle[] {
  const edges = dependencyEdges(tasks);
  const cycles: DependencyCycle[] = [];
  for (const component of stronglyConnected(edges)) {
    const [only] = component;
    if (component.length === 1 && only !== undefined) {
      if (edges.get(only)?.includes(only)) cycles.push([only, only]);
      continue;
    }
    cycles.push(closedWalk(component, edges));
  }
  return cycles.sort((a, b) => compareIds(a[0] ?? "", b[0] ?? ""));
}

/** Prints a cycle as `A → B → C → A`, closing it if the caller passed it open. */
export function formatCycle(cycle: DependencyCycle): string {
  const first = cycle[0];
  if (first === undefined) return "";
  const closed = cycle.length > 1 && cycle[cycle.length - 1] === first ? cycle : [...cycle, first];
  return closed.join(" → ");
}

type Visit = { index: number; low: number };
type Frame = { node: string; visit: Visit; next: number };

/** Tarjan's strongly connected components, with an explicit stack of frames instead of recursion. */
function stronglyConnected(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const visits = new Map<string, Visit>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const enter = (node: string): Frame => {
    const visit = { index: visits.size, low: visits.size };
    visits.set(node, visit);
    stack.push(node);
    onStack.add(node);
    return { node, visit, next: 0 };
  };
  const leave = (frame: Frame): void => {
    if (frame.visit.low !== frame.visit.index) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === frame.node) break;
    }
    components.push(component);
  };

  for (const root of edges.keys()) {
    if (visits.has(root)) continue;
    const frames = [enter(root)];
    for (let frame = frames[0]; frame !== undefined; frame = frames[frames.length - 1]) {
      const successor = edges.get(frame.node)?.[frame.next];
      if (successor === undefined) {
        frames.pop();
        const parent = frames[frames.length - 1];
        if (parent !== undefined) parent.visit.low = Math.min(parent.visit.low, frame.visit.low);
        leave(frame);
        continue;
      }
      frame.next++;
      const seen = visits.get(successor);
      if (seen === undefined) frames.push(enter(successor));
      else if (onStack.has(successor)) frame.visit.low = Math.min(frame.visit.low, seen.index);
    }
  }
  return components;
}

/**
 * A closed walk from the component's smallest id through every member and back, built from shortest
 * hops (breadth-first over sorted edges) so it is deterministic and, for a simple cycle, is the cycle.
 */
function closedWalk(component: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const members = new Set(component);
  const start = [...component].sort(compareIds)[0] as string;
  const walk = [start];
  const covered = new Set([start]);
  let current = start;
  while (covered.size < members.size) {
    const hop = shortestHop(current, (node) => !covered.has(node), members, edges);
    for (const node of hop) covered.add(node);
    walk.push(...hop);
    current = hop[hop.length - 1] ?? current;
  }
  walk.push(...shortestHop(current, (node) => node === start, members, edges));
  return walk;
}

/** The nodes after `from` on a shortest path inside `members` to the first node `isTarget` accepts. */
function shortestHop(
  from: string,
  isTarget: (node: string) => boolean,
  members: ReadonlySet<string>,
  edges: ReadonlyMap<string, readonly string[]>,
): string[] {
  const parent = new Map<string, string>();
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as string;
    for (const next of edges.get(node) ?? []) {
      if (!members.has(next) || parent.has(next)) continue;
      parent.set(next, node);
      if (isTarget(next)) return pathTo(next, from, parent);
      queue.push(next);
    }
  }
  return [];
}

function pathTo(target: string, from: string, parent: ReadonlyMap<string, string>): string[] {
  const path = [target];
  let node = parent.get(target);
  while (node !== undefined && node !== from) {
    path.push(node);
    node = parent.get(node);
  }
  return path.reverse();
}
