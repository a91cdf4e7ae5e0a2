import type { EventCursor, SettledEvent } from "../store/store.js";

export type { EventCursor, SettledEvent };

/**
 * Where a live audit-event stream reads from and waits on. The Node host feeds it from the store
 * (LISTEN/NOTIFY or PGlite's in-process signals, plus a poll); another host (a coordinator holding the
 * log's latest position) may implement the same four calls.
 */
export interface EventFeed {
  /** The cursor just after event `eventId` (a client's `Last-Event-ID`), within `planId`'s log when given. */
  cursorAfter(eventId: number, planId?: string): Promise<EventCursor>;
  /** The cursor after the latest settled event: a client that names no event starts there. */
  head(planId?: string): Promise<EventCursor>;
  /** Up to `limit` settled events after `after`, oldest first in delivery order; `[]` when none yet. */
  read(after: EventCursor, limit: number, planId?: string): Promise<SettledEvent[]>;
  /**
   * Resolves when events of `planId` (any plan's when absent) may have been committed since the call,
   * at the latest after the feed's poll interval (a lost signal only delays), or when `signal` aborts.
   * Never rejects. Call it before the read it guards, so a commit between the two is not missed.
   */
  wait(planId: string | undefined, signal: AbortSignal): Promise<void>;
}

/**
 * The feed of one stream, for hosts that keep state per stream (what their coordinator last reported,
 * what the stream has spent): `ending` aborts when the host wants the stream closed, e.g. before a
 * per-request budget runs out; the client then reconnects with its `Last-Event-ID` and misses nothing.
 */
export type StreamFeed = EventFeed & { readonly ending?: AbortSignal | undefined };

/** Makes the {@link StreamFeed} of each new stream. */
export type StreamFeedFactory = () => StreamFeed;
