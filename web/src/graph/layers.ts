/** A node of the dependency graph: its layer (longest dependency path from a root) and its slot in it. */
export interface Placed {
  id: string;
  layer: number;
  slot: number;
}

/**
 * Layers tasks by their longest path of dependencies: a task without dependencies (or whose
 * dependencies are not in the plan) is layer 0, any other one layer below its deepest dependency,
 * so every edge points down. A cycle (a plan the store refused to run anyway) is cut where it closes.
 * Within a layer, tasks sit near the mean position of their dependencies.
 */
export function layer(tasks: readonly { id: string; dependencies: readonly string[] }[]): {
  nodes: Placed[];
  layers: number;
} {
  const deps = new Map(tasks.map((t) => [t.id, t.dependencies]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (root: string): number => {
    // Iterative DFS, so a chain of thousands of tasks does not overflow the stack.
    const stack: { id: string; i: number; max: number }[] = [{ id: root, i: 0, max: -1 }];
    visiting.add(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; i: number; max: number };
      const list = deps.get(top.id) ?? [];
      if (top.i < list.length) {
        const dep = list[top.i++] as string;
        if (!deps.has(dep) || visiting.has(dep)) continue;
        const known = depth.get(dep);
        if (known !== undefined) top.max = Math.max(top.max, known);
        else {
          visiting.add(dep);
          stack.push({ id: dep, i: 0, max: -1 });
        }
        continue;
      }
      stack.pop();
      visiting.delete(top.id);
      const d = top.max + 1;
      depth.set(top.id, d);
      const parent = stack[stack.length - 1];
      if (parent) parent.max = Math.max(parent.max, d);
    }
    return depth.get(root) ?? 0;
  };
  // Each layer in the mean slot of its dependencies (one barycentre pass), which uncrosses most edges.
  const byLayer: string[][] = [];
  for (const t of tasks) {
    const l = depth.get(t.id) ?? depthOf(t.id);
    const list = byLayer[l] ?? [];
    list.push(t.id);
    byLayer[l] = list;
  }
  const slot = new Map<string, number>();
  const nodes: Placed[] = [];
  byLayer.forEach((ids, l) => {
    const key = (id: string) => {
      const placed = (deps.get(id) ?? []).map((d) => slot.get(d)).filter((s) => s !== undefined);
      return placed.length === 0 ? 0 : placed.reduce((a, b) => a + b, 0) / placed.length;
    };
    const order =
      l === 0
        ? ids
        : ids
            .map((id) => ({ id, k: key(id) }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.id);
    order.forEach((id, i) => {
      slot.set(id, i);
      nodes.push({ id, layer: l, slot: i });
    });
  });
  return { nodes, layers: byLayer.length };
}
