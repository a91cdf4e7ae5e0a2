import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api/errors.js";
import { api, path } from "../api/http.js";
import type { AuditEvent, Plan, Task } from "../api/types.js";
import { useStream, useThrottled } from "../ui/hooks.js";
import { applyEvent, isTransition } from "./reduce.js";

const STRUCTURAL = new Set(["task.created", "task.updated", "plan.applied"]);

/** A plan's summary and tasks, kept current from the plan's event stream. */
export interface LivePlan {
  plan: Plan | undefined;
  tasks: Task[] | undefined;
  error: unknown;
}

/**
 * Loads a plan and its tasks, then follows the plan's stream: each event updates its task in place
 * (batched per animation frame, so a burst of heartbeats over a big plan re-renders once), and a
 * transition refetches the small plan summary for its counts and spend (throttled). After the stream
 * comes back from an error both are fetched again, since events may have been missed.
 */
export function usePlan(planId: string): LivePlan {
  const [plan, setPlan] = useState<Plan | undefined>(undefined);
  const [tasks, setTasks] = useState<Task[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const queue = useRef<AuditEvent[]>([]);
  const frame = useRef(0);

  // A plan deleted while shown is no plan any more: drop what was shown, so the page says so.
  const failed = (err: unknown) => {
    setError(err);
    if (err instanceof ApiError && err.status === 404) {
      setPlan(undefined);
      setTasks(undefined);
    }
  };
  const loadPlan = () => api<Plan>(`plans/${path(planId)}`).then(setPlan, failed);
  // The tasks first: the server's store answers one query at a time, and the table waits for them.
  const loadAll = () => {
    api<{ tasks: Task[] }>(`plans/${path(planId)}/tasks`).then((r) => {
      queue.current = [];
      setTasks(r.tasks);
      setError(undefined);
    }, failed);
    loadPlan();
  };
  const refreshPlan = useThrottled(loadPlan, 1000);
  const reloadAll = useThrottled(loadAll, 2000);

  // A layout effect runs right after the first render, not after the next frame: the fetch of a big
  // plan is the page's critical path.
  useLayoutEffect(() => {
    loadAll();
    return () => cancelAnimationFrame(frame.current);
  }, [planId]);

  const flush = () => {
    frame.current = 0;
    const events = queue.current;
    queue.current = [];
    setTasks((current) => {
      if (!current) return current;
      const index = new Map(current.map((t, i) => [t.id, i]));
      let next: Task[] | undefined;
      for (const event of events) {
        const i = event.task_id === null ? undefined : index.get(event.task_id);
        if (i === undefined) continue;
        const updated = applyEvent((next ?? current)[i] as Task, event);
        if (!updated) continue;
        next ??= [...current];
        next[i] = updated;
      }
      return next ?? current;
    });
  };

  useStream(
    `/api/v1/plans/${path(planId)}/events/stream`,
    (event) => {
      if (event.plan_id !== planId) return;
      if (event.task_id !== null) {
        queue.current.push(event);
        frame.current ||= requestAnimationFrame(flush);
      }
      if (isTransition(event) || event.task_id === null) refreshPlan();
      // Tasks added or changed by `plan apply`: their fields are not in the events, so fetch them all.
      if (STRUCTURAL.has(event.event_type)) reloadAll();
    },
    loadAll,
  );
  return { plan, tasks, error };
}
