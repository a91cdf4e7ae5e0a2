import { compareIds, type TaskRecord, type TaskStatus, type TaskWork, topologicalDepth } from "@whilly/core";

/** A DONE task in the order it is merged; `work` is `undefined` when its worker reported none. */
export type QueuedTask = { readonly id: string; readonly work: TaskWork | undefined };

/** What a plan's tasks give `plan integrate`: the DONE ones to merge, in order, and the others. */
export type IntegrationQueue = {
  /** Every DONE task, each after all of its dependencies (depth, then id). */
  readonly done: readonly QueuedTask[];
  /** The tasks that are not DONE, by id: never merged, listed in the report. */
  readonly notDone: readonly { readonly id: string; readonly status: TaskStatus }[];
};

/**
 * Orders a plan's DONE tasks so each comes after its dependencies (core's topological depth, ties by
 * id): a task's work builds on its dependencies', so merging in this order never merges a dependent's
 * work before the work it was built on.
 */
export function integrationQueue(tasks: readonly TaskRecord[]): IntegrationQueue {
  const depth = topologicalDepth(tasks);
  const byDepth = (a: TaskRecord, b: TaskRecord) =>
    (depth.get(a.id) ?? 0) - (depth.get(b.id) ?? 0) || compareIds(a.id, b.id);
  const done = tasks
    .filter((t) => t.status === "DONE")
    .sort(byDepth)
    .map((t) => ({ id: t.id, work: t.work }));
  const notDone = tasks
    .filter((t) => t.status !== "DONE")
    .sort((a, b) => compareIds(a.id, b.id))
    .map((t) => ({ id: t.id, status: t.status }));
  return { done, notDone };
}
