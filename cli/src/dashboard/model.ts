import type { AttemptProgress, JsonObject } from "@whilly/core";
import { parseUsd, releaseRefundsAttempt } from "@whilly/core";
import type { EventView } from "../events/event-view.js";

/** What the agent last did in a running attempt (the heartbeat's `progress`). */
export type TaskProgress = AttemptProgress;

/** One task as a data source reads it. Times are ISO 8601; money is micro-USD. */
export type SnapshotTask = {
  readonly id: string;
  readonly status: string;
  readonly priority: string;
  readonly description: string;
  readonly claimedBy: string | null;
  readonly attempts: number;
  /**
   * The task's version (it moves on with every transition, whose event carries the version it made):
   * events of a version the snapshot already has are not applied again.
   */
  readonly version: number;
  /** When its current claim began; null when unclaimed or when the source does not say. */
  readonly claimedAt?: string | null | undefined;
  /** Spend over every attempt; undefined when the source does not say (the events then tell). */
  readonly spentMicroUsd?: number | undefined;
  readonly progress?: TaskProgress | undefined;
};

/** A worker as a data source reads it; `lastHeartbeat` is ISO 8601. */
export type SnapshotWorker = {
  readonly id: string;
  readonly lastHeartbeat: string;
  readonly online: boolean;
};

/** A plan, its tasks and (when the source knows them) the workers, read at one moment. */
export type DashboardSnapshot = {
  readonly plan: {
    readonly id: string;
    readonly name: string;
    readonly budgetMicroUsd: number | null;
    readonly spentMicroUsd: number;
  };
  readonly tasks: readonly SnapshotTask[];
  readonly workers?: readonly SnapshotWorker[] | undefined;
  /** Whether an operator paused every worker (`whilly worker pause`); undefined when the source does not say. */
  readonly workersPaused?: boolean | undefined;
};

/** A task row of the view. */
export type TaskRow = SnapshotTask & { readonly spentFromEvents: number };

/** A worker row of the view: the latest time it was heard from (ISO 8601) and the task it runs. */
export type WorkerRow = { readonly id: string; readonly lastSeen: string; readonly task: string | null };

/** Everything the dashboard shows, derived only from snapshots and events ({@link reduceSnapshot}, {@link reduceEvent}). */
export type DashboardState = {
  readonly plan: DashboardSnapshot["plan"] | undefined;
  readonly tasks: readonly TaskRow[];
  readonly workers: readonly WorkerRow[];
  /** The newest events last, at most {@link MAX_EVENTS}. */
  readonly events: readonly EventView[];
  /**
   * The ids of the latest events applied, at most {@link SEEN_EVENTS}: a repeated one is dropped. Not
   * "the highest id", as the stream's ids may step back (docs/protocol.md#the-audit-event-stream).
   */
  readonly seenIds: readonly number[];
  /** Whether every worker is paused, as the latest snapshot that said so told. */
  readonly workersPaused: boolean;
};

/** What the header says while an operator has paused every worker. */
export const WORKERS_PAUSED = "workers paused";

/** How many of the latest events the view keeps. */
export const MAX_EVENTS = 50;

/**
 * How many event ids are remembered to drop repeats: more than a replay sends at once (1,000), so a
 * reconnect's overlap is caught; a stream itself never repeats one.
 */
export const SEEN_EVENTS = 2_000;

/** The view before anything was read. */
export const EMPTY_STATE: DashboardState = {
  plan: undefined,
  tasks: [],
  workers: [],
  events: [],
  seenIds: [],
  workersPaused: false,
};

/**
 * Takes a fresh snapshot: its tasks replace the view's, keeping what only the events told (claim
 * times, progress, per-task spend) where the snapshot does not say. A task the events already took
 * past the snapshot's version (a snapshot read before them that answered after) stays as the events
 * left it. Its workers, when it has them, merge with those the events named; its pause state, when it
 * has one, replaces the view's.
 */
export function reduceSnapshot(state: DashboardState, snapshot: DashboardSnapshot): DashboardState {
  const before = new Map(state.tasks.map((t) => [t.id, t]));
  const tasks = snapshot.tasks.map((task): TaskRow => {
    const old = before.get(task.id);
    if (old && old.version > task.version) {
      return { ...old, priority: task.priority, description: task.description };
    }
    const running = task.status === "CLAIMED" || task.status === "IN_PROGRESS";
    return {
      ...task,
      claimedAt: task.claimedAt ?? (running ? (old?.claimedAt ?? null) : null),
      progress: task.progress ?? (running ? old?.progress : undefined),
      spentFromEvents: old?.spentFromEvents ?? 0,
    };
  });
  let workers = state.workers;
  for (const w of snapshot.workers ?? []) {
    if (w.online) workers = seen(workers, w.id, w.lastHeartbeat);
  }
  const holding = new Map(tasks.filter((t) => t.claimedBy).map((t) => [t.claimedBy, t.id]));
  workers = workers.map((w) => ({ ...w, task: holding.get(w.id) ?? null }));
  const workersPaused = snapshot.workersPaused ?? state.workersPaused;
  return { ...state, plan: snapshot.plan, tasks, workers, workersPaused };
}

/**
 * Applies one audit event, once (by id). A transition newer than the task's version sets its status,
 * holder and attempts; one the snapshot already has only fills in what snapshots may lack (the claim
 * time of the current claim). Heartbeats give the running attempt's progress; costs add to the
 * per-task spend, which a snapshot's own figure overrides.
 */
export function reduceEvent(state: DashboardState, event: EventView): DashboardState {
  if (state.seenIds.includes(event.id)) return state;
  const events = [...state.events, event].slice(-MAX_EVENTS);
  const seenIds = [...state.seenIds, event.id].slice(-SEEN_EVENTS);
  const worker = event.worker_id;
  const workers = worker === null ? state.workers : seen(state.workers, worker, event.created_at);
  const change = taskChange(event);
  const tasks =
    change === undefined || event.task_id === null
      ? state.tasks
      : state.tasks.map((t) => (t.id === event.task_id ? { ...t, ...change(t) } : t));
  const holding =
    change === undefined
      ? undefined
      : new Map(tasks.filter((t) => t.claimedBy).map((t) => [t.claimedBy, t.id]));
  return {
    ...state,
    tasks,
    workers: holding ? workers.map((w) => ({ ...w, task: holding.get(w.id) ?? null })) : workers,
    events,
    seenIds,
  };
}

type Change = (task: TaskRow) => Partial<TaskRow>;

function taskChange(event: EventView): Change | undefined {
  const p = event.payload;
  const spend = costChange(event);
  if (event.event_type === "worker.heartbeat") {
    const progress = progressOf(p.progress);
    return (t) => (progress && isRunning(t) && !(event.created_at < (t.claimedAt ?? "")) ? { progress } : {});
  }
  const transition = transitionChange(event);
  if (transition === undefined) return spend;
  const version = typeof p.version === "number" ? p.version : undefined;
  return (t) => {
    const spent = spend?.(t) ?? {};
    // An event without a version cannot be placed against the snapshot: taken as newer.
    if (version === undefined || version > t.version) {
      return { ...transition(t), ...spent, ...(version === undefined ? {} : { version }) };
    }
    // The snapshot has this transition; the holder's latest claim tells when, if the snapshot does not.
    const current = event.event_type === "CLAIM" && isRunning(t) && t.claimedBy === event.worker_id;
    const later = !t.claimedAt || event.created_at > t.claimedAt;
    return current && later ? { ...spent, claimedAt: event.created_at } : spent;
  };
}

/** What a COMPLETE or FAIL event's cost adds to the task's spend from events. */
function costChange(event: EventView): Change | undefined {
  if (event.event_type !== "COMPLETE" && event.event_type !== "FAIL") return undefined;
  const raw = event.payload.cost_usd;
  const cost = parseUsd(typeof raw === "string" || typeof raw === "number" ? raw : "0") ?? 0;
  return cost === 0 ? undefined : (t) => ({ spentFromEvents: t.spentFromEvents + cost });
}

/** The task fields a transition sets (docs/claim.md's table). */
function transitionChange(event: EventView): Change | undefined {
  const p = event.payload;
  const unheld = { claimedBy: null, claimedAt: null, progress: undefined };
  switch (event.event_type) {
    case "CLAIM":
      return () => ({
        status: "CLAIMED",
        claimedBy: event.worker_id,
        claimedAt: event.created_at,
        progress: undefined,
      });
    case "START":
      return (t) => ({
        status: "IN_PROGRESS",
        attempts: t.status === "IN_PROGRESS" ? t.attempts : t.attempts + 1,
      });
    case "COMPLETE":
      return () => ({ status: "DONE", ...unheld });
    case "FAIL":
      return () => ({ status: p.retry === true ? "PENDING" : "FAILED", ...unheld });
    case "RELEASE":
      return (t) => ({
        status: "PENDING",
        ...unheld,
        attempts:
          t.status === "IN_PROGRESS" && typeof p.reason === "string" && releaseRefundsAttempt(p.reason)
            ? Math.max(0, t.attempts - 1)
            : t.attempts,
      });
    case "RESET":
      return () => ({ status: "PENDING", ...unheld, attempts: 0 });
    case "task.skipped":
      return () => ({ status: "SKIPPED", ...unheld });
    default:
      return undefined;
  }
}

function isRunning(task: TaskRow): boolean {
  return task.status === "CLAIMED" || task.status === "IN_PROGRESS";
}

/** A heartbeat payload's `progress`, keeping only fields of the right type. */
function progressOf(value: JsonObject[string] | undefined): TaskProgress | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { turns, last_tool, phase } = value;
  return {
    ...(typeof turns === "number" ? { turns } : {}),
    ...(typeof last_tool === "string" ? { last_tool } : {}),
    ...(typeof phase === "string" ? { phase } : {}),
  };
}

function seen(workers: readonly WorkerRow[], id: string, at: string): WorkerRow[] {
  const old = workers.find((w) => w.id === id);
  if (!old) return [...workers, { id, lastSeen: at, task: null }];
  return workers.map((w) => (w.id === id && at > w.lastSeen ? { ...w, lastSeen: at } : w));
}

/** A task's spend (micro-USD): the source's figure when it has one, else the costs its events reported. */
export function taskSpend(task: TaskRow): number {
  return task.spentMicroUsd ?? task.spentFromEvents;
}

/**
 * The tasks a filter keeps: every word of `filter` (case-insensitive) must occur in the task's id,
 * status, worker or description; an empty filter keeps all.
 */
export function filterTasks(tasks: readonly TaskRow[], filter: string): TaskRow[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...tasks];
  return tasks.filter((t) => {
    const text = `${t.id} ${t.status} ${t.claimedBy ?? ""} ${t.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** Counts per status, in the order the header shows them. */
export function statusCounts(tasks: readonly TaskRow[]): [string, number][] {
  const order = ["PENDING", "CLAIMED", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"];
  const counts = new Map(order.map((s): [string, number] => [s, 0]));
  for (const t of tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
  return [...counts].filter(([s, n]) => n > 0 || order.slice(0, 5).includes(s));
}
