import { EVENT_BATCH_DEFAULTS } from "../events-buffer/batcher.js";
import type { NewEvent } from "../store/events/insert-events.js";

/** Rows the event buffer writes to Postgres per transaction, and the backlog that flushes at once. */
export const FLUSH_BATCH = EVENT_BATCH_DEFAULTS.maxRows;

/** An event as the buffer keeps it: its sequence number (never reused) and the event as JSON text. */
export type BufferedRow = { readonly seq: number; readonly event: string };

/**
 * The events of buffered rows. An event without an idempotency key of its own gets `<bufferId>:<seq>`
 * (the key format of every event buffer): unique across buffers and stable across retries, so a flush
 * that reached Postgres but was not recorded as done writes nothing the second time.
 */
export function toNewEvents(bufferId: string, rows: readonly BufferedRow[]): NewEvent[] {
  return rows.map((row) => {
    const event = JSON.parse(row.event) as NewEvent;
    return { ...event, idempotencyKey: event.idempotencyKey ?? `${bufferId}:${row.seq}` };
  });
}

/**
 * When to flush after an append (epoch ms): `flushMs` after it for a small backlog, at once when a
 * full batch is waiting; `undefined` when an alarm already set is due no later.
 */
export function nextFlushAt(
  now: number,
  backlog: number,
  flushMs: number,
  currentAlarm: number | null,
): number | undefined {
  const due = backlog >= FLUSH_BATCH ? now : now + flushMs;
  return currentAlarm !== null && currentAlarm <= due ? undefined : due;
}
