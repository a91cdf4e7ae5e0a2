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
 * Within a layer tasks keep their input order.
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
  const slots: number[] = [];
  const nodes = tasks.map((t) => {
    const l = depth.get(t.id) ?? depthOf(t.id);
    const slot = slots[l] ?? 0;
    slots[l] = slot + 1;
    return { id: t.id, layer: l, slot };
  });
  return { nodes, layers: slots.length };
}
