import type { Logger } from "../ports/index.js";
import type { ReadyListener } from "../store/ready/listener.js";
import type { Store } from "../store/store.js";
import type { EventFeed } from "./source.js";

/** Options of {@link startStoreEventFeed}. Durations are ms. */
export type StoreEventFeedOptions = {
  /** The store read and listened to; its `listenForEvents`, when it has one, wakes waiting streams. */
  readonly store: Pick<Store, "readSettledEvents" | "cursorAfterEvent" | "settledHead" | "listenForEvents">;
  /**
   * The longest a wait lasts without a signal (`WHILLY_EVENTS_POLL`): covers a lost notification, and a
   * commit that wrote no event but let earlier events settle (see `readSettledEvents`).
   */
  readonly pollMs: number;
  readonly log?: Logger | undefined;
};

/** A store-backed {@link EventFeed} with its lifecycle. */
export type StoreEventFeed = EventFeed & {
  /** Whether committed events wake waits at once (the store listens); otherwise only the poll does. */
  readonly listens: boolean;
  /**
   * Stops listening: pending waits resolve at once, later ones after the poll interval (a stream still
   * open then only polls, it never spins).
   */
  close(): Promise<void>;
};

type Waiter = { readonly planId: string | undefined; readonly wake: () => void };

/**
 * Starts the feed of one process: one subscription to the store's event signals (a dedicated LISTEN
 * connection on Postgres, PGlite's in-process notifications) fans out to every waiting stream, so a
 * thousand followers cost one connection, and each wake costs each woken stream one read.
 * @throws whatever the first subscription attempt throws (e.g. Postgres unreachable); later
 *   connection losses are retried in the background and logged as `events.listen_lost`.
 */
export async function startStoreEventFeed(options: StoreEventFeedOptions): Promise<StoreEventFeed> {
  const { store, pollMs, log } = options;
  const waiters = new Set<Waiter>();
  let closed = false;
  const wake = (planId: string | undefined) => {
    for (const waiter of [...waiters]) {
      if (planId === undefined || waiter.planId === undefined || waiter.planId === planId) waiter.wake();
    }
  };
  let listener: ReadyListener | undefined;
  if (store.listenForEvents) {
    listener = await store.listenForEvents(wake, {
      onError: (error) => log?.("warn", "events.listen_lost", { error: describe(error) }),
    });
  }
  return {
    listens: listener !== undefined,
    cursorAfter: (eventId, planId) => store.cursorAfterEvent(eventId, planId),
    head: (planId) => store.settledHead(planId),
    read: (after, limit, planId) => store.readSettledEvents(after, { planId, limit }),
    wait(planId, signal) {
      if (signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiter: Waiter = { planId, wake: () => done() };
        const timer = setTimeout(() => done(), pollMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
          signal.removeEventListener("abort", done);
          resolve();
        };
        signal.addEventListener("abort", done, { once: true });
        if (!closed) waiters.add(waiter);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      wake(undefined);
      await listener?.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
