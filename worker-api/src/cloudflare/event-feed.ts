import type { Store } from "../store/store.js";
import type { EventFeed, StreamFeed, StreamFeedFactory } from "../stream/index.js";
import { ALL_PLANS, type CoordinatorBinding } from "./event-signals.js";

/** Options of {@link coordinatorEventFeed}. Durations are ms. */
export type CoordinatorEventFeedOptions = {
  readonly bindings: CoordinatorBinding;
  /** A store per call: each read opens its own connection and closes it (none is held while parked). */
  readonly withStore: <T>(use: (store: Store) => Promise<T>) => Promise<T>;
  /** The longest a stream stays parked without a signal (`WHILLY_EVENTS_POLL`). */
  readonly pollMs: number;
  /**
   * The subrequests (Coordinator calls and database connections) one stream may make before it is
   * ended for its client to reconnect (`WHILLY_EVENTS_SUBREQUESTS`): a Worker's request has a budget of
   * them, and a stream is one long request.
   */
  readonly subrequests: number;
};

/**
 * The audit-event streams' feed on Workers: reads by cursor from Postgres through a store of their own
 * per read, and waits parked in the Coordinator of the stream's plan (or the every-plan one), which
 * the Worker signals after each commit that wrote events (`signalEvents`). Each stream gets its own
 * feed, holding the Coordinator's signal generation it last saw, so a signal that lands while the
 * stream reads is not lost; a signal lost anyway (the object was reset or unreachable) only delays the
 * stream until its poll. A Coordinator call that fails waits out the poll instead.
 */
export function coordinatorEventFeed(options: CoordinatorEventFeedOptions): StreamFeedFactory {
  return () => streamFeed(options);
}

function streamFeed(options: CoordinatorEventFeedOptions): StreamFeed {
  const { bindings, withStore, pollMs } = options;
  const ending = new AbortController();
  let spent = 0;
  /** Counts one subrequest; at the budget's end, asks the stream to end (the call still goes out). */
  const spend = () => {
    spent++;
    if (spent >= options.subrequests) ending.abort();
  };
  const coordinator = (planId: string | undefined) =>
    bindings.COORDINATOR.get(bindings.COORDINATOR.idFromName(planId ?? ALL_PLANS));
  let seen: string | undefined;
  /** Takes the generation before the stream's first read: any later commit's signal then shows. */
  const learnGeneration = async (planId: string | undefined) => {
    if (seen !== undefined) return;
    spend();
    seen = await coordinator(planId)
      .eventGeneration()
      .catch(() => undefined);
  };
  const feed: EventFeed = {
    async cursorAfter(eventId, planId) {
      await learnGeneration(planId);
      spend();
      return withStore((store) => store.cursorAfterEvent(eventId, planId));
    },
    async head(planId) {
      await learnGeneration(planId);
      spend();
      return withStore((store) => store.settledHead(planId));
    },
    read(after, limit, planId) {
      spend();
      return withStore((store) => store.readSettledEvents(after, { planId, limit }));
    },
    wait(planId, signal) {
      if (signal.aborted) return Promise.resolve();
      spend();
      const stub = coordinator(planId);
      const ticket = crypto.randomUUID();
      let settled = false;
      const parked = stub.waitForEvents(seen, pollMs, ticket).then(
        (generation) => {
          seen = generation;
        },
        () => sleep(pollMs, signal),
      );
      return new Promise<void>((resolve) => {
        const onAbort = () => {
          if (settled) return;
          settled = true;
          resolve();
          // The stream moved on (a keep-alive round ended, or its client left): free the parked wait
          // now rather than at its timeout. A client gone makes this call fail, which is fine.
          spend();
          stub.abandonEventWait(ticket).catch(() => {});
        };
        signal.addEventListener("abort", onAbort, { once: true });
        parked.then(() => {
          signal.removeEventListener("abort", onAbort);
          if (settled) return;
          settled = true;
          resolve();
        });
      });
    },
  };
  return { ...feed, ending: ending.signal };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
