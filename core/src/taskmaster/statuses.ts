import type { Priority, TaskStatus } from "../task-status.js";

/** How one Taskmaster status becomes a whilly status; `why` is set when the meaning changes. */
type StatusRule = { readonly to: TaskStatus; readonly why?: string };

const NOT_RUN = "whilly does not run SKIPPED tasks, and the tasks that depend on them stay blocked";

/**
 * Taskmaster's statuses (and the spellings its older releases wrote) as whilly's. Only `pending` and
 * `done` mean the same in both; the others are mapped, and the import prints one line per status it
 * mapped (docs/taskmaster.md, "Statuses").
 */
const STATUS_RULES: Readonly<Record<string, StatusRule>> = {
  pending: { to: "PENDING" },
  done: { to: "DONE" },
  completed: { to: "DONE", why: "an older Taskmaster spelling of done" },
  "in-progress": { to: "PENDING", why: "no whilly worker holds them, so a worker starts them over" },
  in_progress: { to: "PENDING", why: "no whilly worker holds them, so a worker starts them over" },
  review: {
    to: "PENDING",
    why: "whilly has no review state: a worker runs them again and whilly's checks judge the result",
  },
  blocked: { to: "PENDING", why: "whilly holds a task back by itself until its dependencies are DONE" },
  deferred: { to: "SKIPPED", why: NOT_RUN },
  cancelled: { to: "SKIPPED", why: NOT_RUN },
  canceled: { to: "SKIPPED", why: NOT_RUN },
};

/** The statuses Taskmaster documents, for messages. */
export const TASKMASTER_STATUSES = [
  "pending",
  "in-progress",
  "done",
  "review",
  "blocked",
  "deferred",
  "cancelled",
] as const;

/** Taskmaster's priorities, which whilly shares; for messages, lowest first as Taskmaster lists them. */
export const TASKMASTER_PRIORITIES = ["low", "medium", "high", "critical"] as const;

/** A Taskmaster status as whilly reads it, any case; `undefined` for a status Taskmaster does not have. */
export function mapStatus(status: string): { to: TaskStatus; why: string | undefined } | undefined {
  const rule = STATUS_RULES[status.trim().toLowerCase()];
  return rule === undefined ? undefined : { to: rule.to, why: rule.why };
}

/** A Taskmaster priority, any case, as whilly's; `undefined` when it is none of them. */
export function mapPriority(priority: string): Priority | undefined {
  const lower = priority.trim().toLowerCase();
  return (TASKMASTER_PRIORITIES as readonly string[]).includes(lower) ? (lower as Priority) : undefined;
}

/** One Taskmaster status the import had to map, with the tasks that had it (whilly ids, file order). */
export type StatusMapping = {
  /** The status as the file wrote it, lower case. */
  readonly from: string;
  readonly to: TaskStatus;
  readonly why: string;
  readonly taskIds: readonly string[];
};

/** `Taskmaster status 'review' imported as PENDING (tasks 4, 5.1): whilly has no review state: ...` */
export function describeStatusMapping(mapping: StatusMapping): string {
  const tasks = `task${mapping.taskIds.length === 1 ? "" : "s"} ${mapping.taskIds.join(", ")}`;
  return `Taskmaster status '${mapping.from}' imported as ${mapping.to} (${tasks}): ${mapping.why}`;
}
