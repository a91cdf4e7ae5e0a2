import { useMemo } from "preact/hooks";
import type { Task } from "../api/types.js";
import { layer } from "../graph/layers.js";
import { taskHref } from "../router.js";

const W = 112;
const H = 26;
const GAP_X = 14;
const GAP_Y = 44;

/**
 * The plan's dependency graph as SVG: one row per layer (longest dependency path), an edge from each
 * dependency down to its dependant, each node a link to its task coloured by its live status. The
 * layout is computed from ids and dependencies only, so status updates only recolour.
 */
export function DepGraph({ planId, tasks }: { planId: string; tasks: Task[] }) {
  const shape = tasks.map((t) => `${t.id}\u0000${t.dependencies.join("\u0000")}`).join("\u0001");
  const layout = useMemo(() => {
    const { nodes, layers } = layer(tasks);
    const at = new Map(nodes.map((n) => [n.id, { x: n.slot * (W + GAP_X), y: n.layer * (H + GAP_Y) }]));
    const widest = nodes.reduce((m, n) => Math.max(m, n.slot + 1), 1);
    return { at, width: widest * (W + GAP_X) - GAP_X, height: Math.max(1, layers) * (H + GAP_Y) - GAP_Y };
  }, [shape]);
  const edges: preact.JSX.Element[] = [];
  for (const t of tasks) {
    const to = layout.at.get(t.id);
    if (!to) continue;
    for (const dep of t.dependencies) {
      const from = layout.at.get(dep);
      if (!from) continue;
      edges.push(
        <line key={`${dep}>${t.id}`} x1={from.x + W / 2} y1={from.y + H} x2={to.x + W / 2} y2={to.y} />,
      );
    }
  }
  return (
    <div class="graph" data-testid="dep-graph">
      <svg
        width={layout.width + 8}
        height={layout.height + 8}
        viewBox={`-4 -4 ${layout.width + 8} ${layout.height + 8}`}
        role="img"
        aria-label={`dependency graph of ${tasks.length} tasks`}
      >
        <g class="edges">{edges}</g>
        {tasks.map((t) => {
          const p = layout.at.get(t.id);
          if (!p) return null;
          return (
            <a
              key={t.id}
              href={taskHref(planId, t.id)}
              class={`node s-${t.status}`}
              data-testid="graph-node"
              data-task-id={t.id}
              data-status={t.status}
            >
              <title>{`${t.id} (${t.status}): ${t.description}`}</title>
              <rect x={p.x} y={p.y} width={W} height={H} rx={5} />
              <text x={p.x + W / 2} y={p.y + H / 2 + 4} text-anchor="middle">
                {t.id.length > 14 ? `${t.id.slice(0, 13)}…` : t.id}
              </text>
            </a>
          );
        })}
      </svg>
    </div>
  );
}
