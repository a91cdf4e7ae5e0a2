import type { Task } from "../api/types.js";
import { duration, since } from "../format.js";

/** A sortable column of the task table. */
export type SortKey = "id" | "status" | "priority" | "attempts" | "elapsed" | "cost";

const PRIORITY = ["critical", "high", "medium", "low"];
const STATUS_ORDER = ["IN_PROGRESS", "CLAIMED", "FAILED", "PENDING", "DONE", "SKIPPED"];

/** Milliseconds the current claim has run, or `null` when the task is not claimed. */
export function elapsed(task: Task, now: number): number | null {
  return task.status === "CLAIMED" || task.status === "IN_PROGRESS" ? since(task.claimed_at, now) : null;
}

/** What the agent is doing (its last heartbeat), or why the task waits or failed. */
export function step(task: Task): string {
  const p = task.progress;
  if (p && (task.status === "IN_PROGRESS" || task.status === "CLAIMED")) {
    return [p.phase, p.last_tool, p.turns === undefined ? undefined : `turn ${p.turns}`]
      .filter(Boolean)
      .join(" · ");
  }
  if (task.status === "FAILED" && task.previous_failure)
    return String(task.previous_failure.reason ?? "failed");
  if (task.status === "PENDING" && task.not_before && Date.parse(task.not_before) > Date.now()) {
    return `retry in ${duration(Date.parse(task.not_before) - Date.now())}`;
  }
  return "";
}

/** Tasks matching a status (or "" for any) and a text (in id, description or worker, ignoring case). */
export function filterTasks(tasks: readonly Task[], status: string, text: string): Task[] {
  const needle = text.trim().toLowerCase();
  return tasks.filter(
    (t) =>
      (status === "" || t.status === status) &&
      (needle === "" ||
        t.id.toLowerCase().includes(needle) ||
        t.description.toLowerCase().includes(needle) ||
        (t.claimed_by ?? "").toLowerCase().includes(needle)),
  );
}

/** Sorts a copy of `tasks` by `key` (ties by id), descending when `desc`. */
export function sortTasks(tasks: readonly Task[], key: SortKey, desc: boolean, now: number): Task[] {
  const value = (t: Task): number | string => {
    switch (key) {
      case "status":
        return STATUS_ORDER.indexOf(t.status);
      case "priority": {
        const i = PRIORITY.indexOf(t.priority);
        return i === -1 ? PRIORITY.length : i;
      }
      case "attempts":
        return t.attempts;
      case "elapsed":
        return elapsed(t, now) ?? -1;
      case "cost":
        return Number(t.spent_usd);
      default:
        return t.id;
    }
  };
  const sign = desc ? -1 : 1;
  return [...tasks].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    const c = va < vb ? -1 : va > vb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return c * sign;
  });
}
