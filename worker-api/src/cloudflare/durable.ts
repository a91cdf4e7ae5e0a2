import type { NewEvent } from "../store/events/insert-events.js";
import type { Coordinator } from "./coordinator.js";
import type { EventBuffer } from "./event-buffer.js";

/** The Durable Object bindings `wrangler.toml` declares. */
export type DurableBindings = {
  /** One {@link Coordinator} per plan, addressed by `idFromName(planId)`. */
  readonly COORDINATOR: DurableObjectNamespace<Coordinator>;
  /** One {@link EventBuffer} per plan, addressed by `idFromName(planId)`. */
  readonly EVENT_BUFFER: DurableObjectNamespace<EventBuffer>;
};

/**
 * Parks a claim in its plan's Coordinator until woken, `timeoutMs` passes or `signal` aborts. On abort
 * the wait is left parked in the Coordinator: `abandon` receives the call that drops it, for the caller
 * to send from a context that still runs (a request whose client hung up can no longer do I/O of its
 * own). A failed call (the object was reset, or is unreachable) waits out `fallbackMs` instead, so the
 * claim loop re-reads the database at the recheck pace rather than spinning.
 */
export async function parkClaim(
  bindings: DurableBindings,
  planId: string,
  wait: { timeoutMs: number; fallbackMs: number; signal: AbortSignal | undefined },
  abandon: (drop: () => Promise<void>) => void,
): Promise<void> {
  const { timeoutMs, fallbackMs, signal } = wait;
  if (signal?.aborted) return;
  const stub = bindings.COORDINATOR.get(bindings.COORDINATOR.idFromName(planId));
  const ticket = crypto.randomUUID();
  const parked = stub.waitForWork(timeoutMs, ticket).then(
    () => {},
    () => sleep(Math.min(timeoutMs, fallbackMs)),
  );
  if (signal === undefined) return parked;
  let onAbort = () => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    if ((await Promise.race([parked, aborted])) === "aborted") abandon(() => stub.abandon(ticket));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** Wakes the claim parked longest on each plan (it wakes the next when it gets a task). */
export async function wakePlans(bindings: DurableBindings, planIds: Iterable<string>): Promise<void> {
  await Promise.all(
    [...new Set(planIds)].map((planId) =>
      bindings.COORDINATOR.get(bindings.COORDINATOR.idFromName(planId)).notifyWork(),
    ),
  );
}

/** Hands events to their plans' EventBuffers, in order within each plan. */
export async function bufferEvents(bindings: DurableBindings, events: readonly NewEvent[]): Promise<void> {
  const byPlan = new Map<string, NewEvent[]>();
  for (const event of events) {
    const group = byPlan.get(event.planId);
    if (group) group.push(event);
    else byPlan.set(event.planId, [event]);
  }
  await Promise.all(
    [...byPlan].map(([planId, group]) =>
      bindings.EVENT_BUFFER.get(bindings.EVENT_BUFFER.idFromName(planId)).append(group),
    ),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
