import { useMemo, useState } from "preact/hooks";
import { STATUSES } from "../api/types.js";
import { countStatuses } from "../live/reduce.js";
import { usePlan } from "../live/usePlan.js";
import { DepGraph } from "../ui/DepGraph.js";
import { useNow } from "../ui/hooks.js";
import { Loading } from "../ui/Status.js";
import { TaskTable } from "../ui/TaskTable.js";
import { filterTasks, type SortKey, sortTasks } from "../ui/task-columns.js";
import { ProgressBar, Spend } from "./Plans.js";

/** Plans of up to this many tasks show their graph at once; bigger ones behind a toggle. */
const GRAPH_OPEN_UP_TO = 150;

/** A plan: its progress, its tasks as a live virtual table, and its dependency graph. */
export function PlanPage({ planId }: { planId: string }) {
  const { plan, tasks, error } = usePlan(planId);
  const [status, setStatus] = useState("");
  const [text, setText] = useState("");
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: "id", desc: false });
  // Only an order by elapsed time follows the clock; the table ticks its own elapsed cells.
  const now = useNow(sort.key === "elapsed" ? 1000 : 0);
  const [graph, setGraph] = useState<boolean | null>(null);
  const shown = useMemo(
    () => (tasks ? sortTasks(filterTasks(tasks, status, text), sort.key, sort.desc, now) : []),
    [tasks, status, text, sort, now],
  );
  // The table shows as soon as the tasks are in; the small summary (name, spend) may come after.
  if (!tasks) return <Loading error={error} what={`plan '${planId}'`} />;
  const counts = countStatuses(tasks);
  const graphOpen = graph ?? tasks.length <= GRAPH_OPEN_UP_TO;
  const onSort = (key: SortKey) => setSort((s) => ({ key, desc: s.key === key ? !s.desc : false }));
  return (
    <section data-testid="plan-page" data-plan-id={planId}>
      <p class="crumbs">
        <a href="#/">Plans</a> /
      </p>
      <h1>{plan?.name ?? planId}</h1>
      <ProgressBar counts={counts} total={tasks.length} />
      <p class="counts">
        {STATUSES.map((s) => (
          <button
            type="button"
            key={s}
            class={`chip s-${s}`}
            aria-pressed={status === s}
            onClick={() => setStatus(status === s ? "" : s)}
            data-testid={`chip-${s}`}
          >
            {s.replace("_", " ").toLowerCase()} {counts[s]}
          </button>
        ))}
      </p>
      {plan && <Spend spent={plan.spent_usd} budget={plan.budget_usd} />}
      <div class="filters">
        <label>
          Status{" "}
          <select
            value={status}
            onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}
            data-testid="filter-status"
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search{" "}
          <input
            type="search"
            value={text}
            placeholder="id, text or worker"
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
            data-testid="filter-text"
          />
        </label>
        <span class="muted" data-testid="task-count">
          {shown.length} of {tasks.length}
        </span>
      </div>
      <TaskTable planId={planId} tasks={shown} sort={sort} onSort={onSort} />
      <h2>
        Dependencies{" "}
        <button
          type="button"
          class="secondary"
          onClick={() => setGraph(!graphOpen)}
          data-testid="graph-toggle"
          aria-expanded={graphOpen}
        >
          {graphOpen ? "Hide graph" : `Show graph (${tasks.length} tasks)`}
        </button>
      </h2>
      {graphOpen && <DepGraph planId={planId} tasks={tasks} />}
    </section>
  );
}
