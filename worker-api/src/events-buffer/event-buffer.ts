import { randomUUID } from "node:crypto";
import { errorSummary } from "@whilly/core";
import type { EventSink, Logger } from "../ports/index.js";
import type { NewEvent } from "../store/events/insert-events.js";
import { EventBatcher, flushRetryDelayMs } from "./batcher.js";

/** Options of {@link createEventBuffer}. Durations are ms. */
export type EventBufferOptions = {
  /** Writes one batch in one transaction, skipping repeated idempotency keys (`store.appendEvents`). */
  readonly write: (batch: readonly NewEvent[]) => Promise<unknown>;
  readonly log?: Logger | undefined;
  /** Unique per buffer; default a random UUID. */
  readonly bufferId?: string | undefined;
  /** Rows per flush and the size that triggers one; default 500. */
  readonly maxRows?: number | undefined;
  /** Longest wait of a queued event before a flush; default 100 ms. */
  readonly maxDelayMs?: number | undefined;
  /** Queue bound; default 10,000 events. */
  readonly capacity?: number | undefined;
  /** Pause before the n-th retry of a failed flush; default {@link flushRetryDelayMs}. */
  readonly retryDelayMs?: ((attempt: number) => number) | undefined;
};

/** Counters of an {@link EventBuffer}. */
export type EventBufferStats = {
  readonly queued: number;
  readonly written: number;
  /** Refused because the queue was full, or appended after the drain. */
  readonly dropped: number;
  readonly failedFlushes: number;
};

/** The in-process event buffer: an {@link EventSink} that must be drained before the process exits. */
export type EventBuffer = EventSink & {
  /**
   * Flushes everything queued (retrying failures) and closes the buffer; later appends are dropped.
   * Gives up after `timeoutMs` (default 5 s), logging how many events were lost.
   * @returns how many events were still queued when it gave up (0 on success).
   */
  drain(timeoutMs?: number): Promise<number>;
  stats(): EventBufferStats;
};

/** How often a run of drops is logged at most (ms). */
const DROP_LOG_EVERY_MS = 10_000;

/**
 * The event buffer on Node (the Workers Durable Object's twin, sharing {@link EventBatcher}): events
 * are queued in memory and written in batches, every 100 ms or at 500 rows, one flush at a time. A
 * failed flush is retried with backoff from the head of the queue, so order holds and idempotency keys
 * prevent duplicates.
 *
 * A full queue drops the newest events and counts them (`event_buffer.dropped`, logged at most every
 * 10 s) rather than making callers wait: these events are observations (offline workers, findings),
 * and an outage of the events table must not stall claims or sweeps. Transition events never pass
 * through here.
 */
export function createEventBuffer(options: EventBufferOptions): EventBuffer {
  const log = options.log;
  const batcher = new EventBatcher({
    bufferId: options.bufferId ?? randomUUID(),
    maxRows: options.maxRows,
    maxDelayMs: options.maxDelayMs,
    capacity: options.capacity,
  });
  const retryDelay = options.retryDelayMs ?? flushRetryDelayMs;
  let written = 0;
  let dropped = 0;
  let droppedUnlogged = 0;
  let lastDropLog = Number.NEGATIVE_INFINITY;
  let failedFlushes = 0;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pumping: Promise<void> | undefined;
  let drainDeadline: number | undefined;
  let closed = false;

  const drop = (count: number) => {
    dropped += count;
    droppedUnlogged += count;
    const now = Date.now();
    if (now - lastDropLog >= DROP_LOG_EVERY_MS) {
      log?.("warn", "event_buffer.dropped", { dropped: droppedUnlogged, total_dropped: dropped, closed });
      droppedUnlogged = 0;
      lastDropLog = now;
    }
  };

  /** Runs the flush loop unless it is running: one flush at a time, so acks match their batches. */
  const runPump = (): Promise<void> => {
    pumping ??= pump().finally(() => {
      pumping = undefined;
      schedule();
    });
    return pumping;
  };

  /** Arms the timer for the next due flush, unless a flush loop runs (it re-arms when done) or a drain does. */
  const schedule = () => {
    if (pumping || timer || drainDeadline !== undefined) return;
    const due = batcher.dueInMs(Date.now());
    if (due === undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void runPump();
    }, due);
  };

  /** Writes the head batch once; on failure, waits out the retry delay (cut short by a drain's deadline). */
  const flushHead = async () => {
    const batch = batcher.peek();
    const started = Date.now();
    try {
      await options.write(batch);
      batcher.ack(batch.length);
      written += batch.length;
      attempt = 0;
      log?.("debug", "event_buffer.flushed", { rows: batch.length, latency_ms: Date.now() - started });
    } catch (error) {
      attempt += 1;
      failedFlushes += 1;
      const delay = retryDelay(attempt);
      log?.("warn", "event_buffer.flush_failed", {
        rows: batch.length,
        attempt,
        retry_in_ms: delay,
        error: errorSummary(error),
      });
      const wait = drainDeadline === undefined ? delay : Math.min(delay, drainDeadline - Date.now());
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
  };

  /** Flushes due batches until none is due (draining: until empty or past the deadline). */
  const pump = async () => {
    for (;;) {
      if (batcher.size === 0) return;
      if (drainDeadline === undefined ? batcher.dueInMs(Date.now()) !== 0 : Date.now() >= drainDeadline)
        return;
      await flushHead();
    }
  };

  return {
    append(events) {
      if (events.length === 0) return;
      if (closed) return drop(events.length);
      const accepted = batcher.add(events, Date.now());
      if (accepted < events.length) drop(events.length - accepted);
      if (batcher.dueInMs(Date.now()) === 0 && timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      schedule();
    },

    async drain(timeoutMs = 5000) {
      drainDeadline = Date.now() + timeoutMs;
      clearTimeout(timer);
      timer = undefined;
      while (batcher.size > 0 && Date.now() < drainDeadline) await runPump();
      closed = true;
      const lost = batcher.size;
      if (lost > 0) log?.("error", "event_buffer.drain_incomplete", { lost, timeout_ms: timeoutMs });
      else log?.("info", "event_buffer.drained", { written });
      return lost;
    },

    stats: () => ({ queued: batcher.size, written, dropped, failedFlushes }),
  };
}
