/**
 * The six task states, in the order whilly 4.x lists them (docs/architecture.md#the-queues-rules).
 * `DONE`, `FAILED` and `SKIPPED` are terminal.
 */
export const TASK_STATUSES = ["PENDING", "CLAIMED", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"] as const;

/** One of {@link TASK_STATUSES}; always upper case. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** States no transition leaves (only an out-of-band plan reset does). */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ["DONE", "FAILED", "SKIPPED"];

/** Priorities, most urgent first; claims take them in this order, then task id. */
export const PRIORITIES = ["critical", "high", "medium", "low"] as const;

/** One of {@link PRIORITIES}; always lower case. */
export type Priority = (typeof PRIORITIES)[number];

/** True when `value` is a {@link TaskStatus}. */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === "string" && (TASK_STATUSES as readonly string[]).includes(value);
}

/** True when `value` is a {@link Priority}. */
export function isPriority(value: unknown): value is Priority {
  return typeof value === "string" && (PRIORITIES as readonly string[]).includes(value);
}

/** True for `DONE`, `FAILED` and `SKIPPED`. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** 0 for `critical` up to 3 for `low`: the claim order's first key. */
export function priorityRank(priority: Priority): number {
  return PRIORITIES.indexOf(priority);
}
