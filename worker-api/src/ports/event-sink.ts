import type { NewEvent } from "../store/store.js";

/**
 * Takes non-transition events (agent output summaries, findings, metrics) and writes them in batches
 * with idempotency keys. Transition events never go here: they are written in their own transaction.
 */
export type EventSink = { append(events: readonly NewEvent[]): void | Promise<void> };
