import type { Store } from "../store/store.js";
import type { EventFeed } from "./source.js";

/**
 * A feed with no signals: it reads through `withStore` (a store per call, as on Workers) and every
 * wait lasts `pollMs`. For hosts that hold no listening connection; `startStoreEventFeed` is the one
 * that wakes at once.
 */
export function pollingEventFeed(
  withStore: <T>(use: (store: Store) => Promise<T>) => Promise<T>,
  pollMs: number,
): EventFeed {
  return {
    cursorAfter: (eventId, planId) => withStore((store) => store.cursorAfterEvent(eventId, planId)),
    head: (planId) => withStore((store) => store.settledHead(planId)),
    read: (after, limit, planId) => withStore((store) => store.readSettledEvents(after, { planId, limit })),
    wait: (_planId, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal.addEventListener("abort", done, { once: true });
      }),
  };
}
