import type { AuditEvent, Status, Task } from "../api/types.js";

/** Adds two six-decimal USD strings without float drift (in micro-dollars). */
export function addUsd(a: string, b: unknown): string {
  const micro = (v: unknown) =>
    typeof v === "string" || typeof v === "number" ? Math.round(Number(v) * 1e6) : 0;
  const sum = micro(a) + micro(b);
  return Number.isFinite(sum) ? (sum / 1e6).toFixed(6) : a;
}

/**
 * A task after one of its audit events, or `undefined` when the event does not change what the table
 * shows (docs/protocol.md, "The audit-event stream"; event names in core's `EVENT_TYPES`). Transitions
 * set the status as the store did: `FAIL` with `retry` goes back to `PENDING`; heartbeats carry the
 * agent's progress; finishes add their `cost_usd`.
 */
export function applyEvent(task: Task, event: AuditEvent): Task | undefined {
  const p = event.payload ?? {};
  const detail = (event.detail ?? {}) as Record<string, unknown>;
  const version = typeof p.version === "number" ? { version: p.version } : {};
  const status = (s: Status, extra: Partial<Task> = {}): Task => ({
    ...task,
    ...version,
    status: s,
    ...extra,
  });
  const unclaimed = { claimed_by: null, claimed_at: null, progress: null };
  switch (event.event_type) {
    case "CLAIM":
      return status("CLAIMED", {
        claimed_by: typeof p.worker_id === "string" ? p.worker_id : (event.worker_id ?? null),
        claimed_at: event.created_at,
        attempts: task.attempts + 1,
        progress: null,
        agent: typeof detail.agent === "string" ? detail.agent : task.agent,
        model: typeof detail.model === "string" ? detail.model : task.model,
      });
    case "START":
      return status("IN_PROGRESS");
    case "COMPLETE":
      return status("DONE", { ...unclaimed, spent_usd: addUsd(task.spent_usd, p.cost_usd) });
    case "FAIL":
      return status(p.retry === true ? "PENDING" : "FAILED", {
        ...unclaimed,
        spent_usd: addUsd(task.spent_usd, p.cost_usd),
        previous_failure: { ...p },
      });
    case "RELEASE":
      return status("PENDING", unclaimed);
    case "RESET":
      return status("PENDING", { ...unclaimed, attempts: 0 });
    case "task.skipped":
      return status("SKIPPED", unclaimed);
    case "worker.heartbeat": {
      const progress = p.progress;
      if (progress === null || typeof progress !== "object") return undefined;
      return { ...task, progress: progress as Task["progress"] };
    }
    default:
      return undefined;
  }
}

/** Whether an event changes a task's status (so the plan's counts and spend move). */
export function isTransition(event: AuditEvent): boolean {
  return /^[A-Z]+$/.test(event.event_type) || event.event_type === "task.skipped";
}

/** Counts of each status over `tasks`. */
export function countStatuses(tasks: readonly Task[]): Record<Status, number> {
  const counts: Record<Status, number> = {
    PENDING: 0,
    CLAIMED: 0,
    IN_PROGRESS: 0,
    DONE: 0,
    FAILED: 0,
    SKIPPED: 0,
  };
  for (const t of tasks) counts[t.status] = (counts[t.status] ?? 0) + 1;
  return counts;
}

/** An audit event as a task's page lists it: `folded` earlier heartbeats of the same run left out. */
export interface ListedEvent {
  event: AuditEvent;
  folded: number;
}

/**
 * A task's events (oldest first) with each run of consecutive `worker.heartbeat`s kept as its latest
 * one: a worker heartbeats every 30 s, so an attempt of ten minutes would otherwise bury the
 * transitions under twenty lines saying the same thing.
 */
export function foldHeartbeats(events: readonly AuditEvent[]): ListedEvent[] {
  const out: ListedEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (event.event_type === "worker.heartbeat" && last?.event.event_type === "worker.heartbeat") {
      out[out.length - 1] = { event, folded: last.folded + 1 };
    } else {
      out.push({ event, folded: 0 });
    }
  }
  return out;
}
