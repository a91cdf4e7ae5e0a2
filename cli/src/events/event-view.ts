import { type EventRecord, formatUsd, type JsonObject, type JsonValue, parseUsd } from "@whilly/core";

/**
 * One audit event as `whilly events --json` prints it: the read API's event shape (money as stored,
 * times in ISO 8601) plus the worker the event names, as the control plane's stream sends it.
 */
export type EventView = {
  readonly id: number;
  readonly plan_id: string;
  readonly task_id: string | null;
  readonly worker_id: string | null;
  readonly event_type: string;
  readonly payload: JsonObject;
  readonly detail: JsonObject | null;
  readonly created_at: string;
};

/** The view of a stored event (payload and detail as stored: secrets were redacted before storing). */
export function eventView(event: EventRecord): EventView {
  return {
    id: event.id,
    plan_id: event.planId,
    task_id: event.taskId ?? null,
    worker_id: typeof event.payload.worker_id === "string" ? event.payload.worker_id : null,
    event_type: event.eventType,
    payload: event.payload,
    detail: event.detail ?? null,
    created_at: event.createdAt.toISOString(),
  };
}

/**
 * The view of an event the read API's page sent (which has no `worker_id`): the worker its payload
 * names added, in the same place as the stream and the store put it.
 */
export function pagedEventView(event: Omit<EventView, "worker_id">): EventView {
  const { id, plan_id, task_id, ...rest } = event;
  const worker = event.payload.worker_id;
  return { id, plan_id, task_id, worker_id: typeof worker === "string" ? worker : null, ...rest };
}

/** Payload fields a human line shows, in this order, when present. */
const SHOWN = ["status", "reason", "attempt", "cost_usd", "agent", "model", "version"] as const;
const MAX_DETAIL = 100;

/**
 * A human line: `#<id> <time> <type> <task> <worker> <detail>`, where `-` stands for no task or worker
 * and the detail is the payload's status, reason, attempt, cost, agent, model and version, cut at 100
 * characters. The caller's stream escapes control characters.
 */
export function eventLine(view: EventView): string {
  const detail = SHOWN.flatMap((key) => {
    const value = view.payload[key];
    if (value === undefined || value === null || typeof value === "object") return [];
    return [`${key === "cost_usd" ? "cost" : key}=${shown(key, value)}`];
  }).join(" ");
  const cut = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail;
  const time = view.created_at.replace("T", " ").replace(/\.\d+Z$/, "Z");
  return [`#${view.id}`, time, view.event_type, view.task_id ?? "-", view.worker_id ?? "-", cut]
    .join("  ")
    .trimEnd();
}

function shown(key: string, value: JsonValue): string {
  if (key === "cost_usd" && (typeof value === "string" || typeof value === "number")) {
    const micro = parseUsd(value);
    return micro === undefined ? String(value) : `$${formatUsd(micro)}`;
  }
  return String(value);
}
