import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Task } from "../api/types.js";
import { duration, usd } from "../format.js";
import { taskHref } from "../router.js";
import { useNow } from "./hooks.js";
import { StatusPill } from "./Status.js";
import { elapsed, type SortKey, step } from "./task-columns.js";
import { rowWindow } from "./virtual.js";

/** Row height in px; the CSS's `--row` must match. */
export const ROW_HEIGHT = 36;

const COLUMNS: { key: SortKey | null; label: string; cls: string }[] = [
  { key: "id", label: "Task", cls: "c-id" },
  { key: "status", label: "Status", cls: "c-status" },
  { key: "priority", label: "Priority", cls: "c-prio" },
  { key: null, label: "Worker", cls: "c-worker" },
  { key: "attempts", label: "Tries", cls: "c-tries" },
  { key: "elapsed", label: "Elapsed", cls: "c-elapsed" },
  { key: "cost", label: "Cost", cls: "c-cost" },
  { key: null, label: "Step", cls: "c-step" },
];

interface Props {
  planId: string;
  tasks: Task[];
  sort: { key: SortKey; desc: boolean };
  onSort(key: SortKey): void;
}

/**
 * The plan's tasks as a virtual table: only the rows in view (plus a few) are in the DOM, each of
 * {@link ROW_HEIGHT}, so a plan of thousands of tasks scrolls and updates as fast as one of ten.
 */
export function TaskTable({ planId, tasks, sort, onSort }: Props) {
  const now = useNow();
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600 });
  const measure = () => {
    const el = scroller.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight });
  };
  useLayoutEffect(measure, []);
  useEffect(() => {
    addEventListener("resize", measure);
    return () => removeEventListener("resize", measure);
  }, []);
  const win = rowWindow(view.top, view.height, ROW_HEIGHT, tasks.length);
  const below = (tasks.length - win.end) * ROW_HEIGHT;
  return (
    <div class="rows" ref={scroller} onScroll={measure} data-testid="task-scroller">
      <table class="tasks" aria-rowcount={tasks.length + 1} data-testid="task-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.label} class={c.cls} scope="col" aria-sort={ariaSort(c.key, sort)}>
                {c.key ? (
                  <button
                    type="button"
                    class="link"
                    onClick={() => onSort(c.key as SortKey)}
                    data-testid={`sort-${c.key}`}
                  >
                    {c.label}
                    {sort.key === c.key ? (sort.desc ? " ↓" : " ↑") : ""}
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {win.top > 0 && <tr class="spacer" style={{ height: `${win.top}px` }} />}
          {tasks.slice(win.start, win.end).map((t, i) => (
            <TaskRow key={t.id} planId={planId} task={t} now={now} index={win.start + i} />
          ))}
          {below > 0 && <tr class="spacer" style={{ height: `${below}px` }} />}
        </tbody>
      </table>
    </div>
  );
}

function ariaSort(key: SortKey | null, sort: Props["sort"]) {
  if (key === null || key !== sort.key) return undefined;
  return sort.desc ? "descending" : "ascending";
}

function TaskRow({ planId, task, now, index }: { planId: string; task: Task; now: number; index: number }) {
  const ms = elapsed(task, now);
  const max = task.max_attempts === undefined ? "" : `/${task.max_attempts}`;
  return (
    <tr aria-rowindex={index + 2} data-testid="task-row" data-task-id={task.id} data-status={task.status}>
      <td class="c-id">
        <a href={taskHref(planId, task.id)} title={task.description}>
          {task.id}
        </a>
        <span class="desc muted">{task.description}</span>
      </td>
      <td class="c-status">
        <StatusPill status={task.status} />
      </td>
      <td class="c-prio">{task.priority}</td>
      <td class="c-worker" title={task.claimed_by ?? ""}>
        {task.claimed_by ?? ""}
      </td>
      <td class="c-tries">
        {task.attempts}
        {max}
      </td>
      <td class="c-elapsed">{ms === null ? "" : duration(ms)}</td>
      <td class="c-cost">{Number(task.spent_usd) > 0 ? usd(task.spent_usd) : ""}</td>
      <td class="c-step muted" data-testid="task-step">
        {step(task)}
      </td>
    </tr>
  );
}
