import type { NewEvent } from "../store/events/insert-events.js";

/** An event in the buffer, with the idempotency key that makes a retried flush harmless. */
export type KeyedEvent = NewEvent & { readonly idempotencyKey: string };

/** Options of {@link EventBatcher}. Durations are ms. */
export type BatcherOptions = {
  /** Unique per buffer instance (e.g. a random UUID): keys are `<bufferId>:<seq>`. */
  readonly bufferId: string;
  /** Rows per flush, and the queue length that makes a flush due at once. Default 500. */
  readonly maxRows?: number | undefined;
  /** The oldest queued event waits at most this long before a flush is due. Default 100 ms. */
  readonly maxDelayMs?: number | undefined;
  /** Queue bound; events beyond it are refused. Default 10,000. */
  readonly capacity?: number | undefined;
};

/** Defaults shared by every event buffer: flush every 100 ms or at 500 rows. */
export const EVENT_BATCH_DEFAULTS = { maxRows: 500, maxDelayMs: 100, capacity: 10_000 } as const;

/**
 * The runtime-neutral decisions of an event buffer (the Node twin and the Workers Durable Object
 * both use it): which events form the next batch, when a flush is due, and the idempotency keys.
 *
 * Batches are taken from the head and removed only when acknowledged, so a failed flush is retried
 * with the same events, in the same order, under the same keys: rows an earlier attempt did commit
 * are skipped by the store (`appendEvents`), never duplicated, and nothing is re-queued at the tail.
 */
export class EventBatcher {
  readonly maxRows: number;
  readonly maxDelayMs: number;
  readonly capacity: number;
  private readonly queue: { event: KeyedEvent; at: number }[] = [];
  private seq = 0;

  constructor(private readonly options: BatcherOptions) {
    this.maxRows = options.maxRows ?? EVENT_BATCH_DEFAULTS.maxRows;
    this.maxDelayMs = options.maxDelayMs ?? EVENT_BATCH_DEFAULTS.maxDelayMs;
    this.capacity = options.capacity ?? EVENT_BATCH_DEFAULTS.capacity;
  }

  /** Events queued and not yet acknowledged. */
  get size(): number {
    return this.queue.length;
  }

  /**
   * Queues events in order, keying each `<bufferId>:<seq>` unless it already has a key. When the
   * queue is full the rest are refused (the caller decides whether that is a drop or a wait).
   * @param now the caller's clock, ms.
   * @returns how many were queued; the others, from the first refused on, were not.
   */
  add(events: readonly NewEvent[], now: number): number {
    const room = Math.max(0, this.capacity - this.queue.length);
    const accepted = events.slice(0, room);
    for (const event of accepted) {
      this.seq += 1;
      const idempotencyKey = event.idempotencyKey ?? `${this.options.bufferId}:${this.seq}`;
      this.queue.push({ event: { ...event, idempotencyKey }, at: now });
    }
    return accepted.length;
  }

  /**
   * How long until a flush is due: 0 when the queue holds a full batch or its oldest event has waited
   * `maxDelayMs`; `undefined` when empty.
   */
  dueInMs(now: number): number | undefined {
    const head = this.queue[0];
    if (!head) return undefined;
    if (this.queue.length >= this.maxRows) return 0;
    return Math.max(0, head.at + this.maxDelayMs - now);
  }

  /** The next batch: up to `maxRows` events from the head, oldest first. Stays queued until {@link ack}. */
  peek(): KeyedEvent[] {
    return this.queue.slice(0, this.maxRows).map((item) => item.event);
  }

  /** Removes the first `count` events, once a flush of them succeeded. */
  ack(count: number): void {
    this.queue.splice(0, count);
  }
}

/**
 * Pause before the `attempt`-th retry of a failed flush (1-based): 50 ms doubling to at most 5 s, so a
 * database outage costs a few queries a second, not a tight loop.
 */
export function flushRetryDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.max(0, attempt - 1), 5000);
}
