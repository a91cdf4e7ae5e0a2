import { PlanNotFound } from "@whilly/core";
import { type EventCursor, LOG_START, type Store, startStoreEventFeed } from "@whilly/worker-api";
import { type EventView, eventView } from "./event-view.js";

/** What `whilly events` reads and how long it keeps reading. Durations are ms. */
export type EventsQuery = {
  readonly planId: string;
  /** Print events after this event id; from the log's start when absent. */
  readonly afterId?: number | undefined;
  /** Stop after this many events. */
  readonly limit?: number | undefined;
  /** Keep following new events until `signal` aborts (or `limit` is reached). */
  readonly follow: boolean;
  /** Aborted on Ctrl-C. */
  readonly signal?: AbortSignal | undefined;
};

/** Events read per query. */
const PAGE = 100;

/**
 * Prints a plan's audit log from the store itself (embedded or `WHILLY_DATABASE_URL`) through `emit`,
 * in the stream's no-skip order (the store's `readSettledEvents`: an event whose transaction commits
 * late is printed when it commits, never skipped), following with the store's event signals
 * (LISTEN/NOTIFY on Postgres) and a poll of `pollMs` for a missed one.
 * @returns how many events were printed.
 * @throws {PlanNotFound} when the plan is not stored.
 */
export async function printStoreEvents(
  store: Store,
  query: EventsQuery,
  pollMs: number,
  emit: (event: EventView) => void,
): Promise<number> {
  const { planId, signal } = query;
  if (!(await store.getPlan(planId))) throw new PlanNotFound(planId);
  const feed = await startStoreEventFeed({ store: query.follow ? store : withoutSignals(store), pollMs });
  let printed = 0;
  try {
    let cursor: EventCursor =
      query.afterId === undefined ? LOG_START : await feed.cursorAfter(query.afterId, planId);
    while (!signal?.aborted) {
      const round = new AbortController();
      const endRound = () => round.abort();
      signal?.addEventListener("abort", endRound, { once: true });
      try {
        const woken = feed.wait(planId, round.signal);
        const page = await feed.read(cursor, PAGE, planId);
        for (const event of page) {
          emit(eventView(event));
          cursor = event.cursor;
          if (++printed === query.limit) return printed;
        }
        if (page.length === PAGE) continue;
        if (!query.follow) return printed;
        await woken;
      } finally {
        signal?.removeEventListener("abort", endRound);
        round.abort();
      }
    }
    return printed;
  } finally {
    await feed.close();
  }
}

/** The store without its event subscription: a listing that does not follow opens no LISTEN connection. */
function withoutSignals(store: Store): Omit<Store, "listenForEvents"> {
  const { listenForEvents: _unused, ...rest } = store;
  return rest;
}
