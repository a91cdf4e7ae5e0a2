import { errorSummary } from "@whilly/core";
import type { EventSink, Logger, WorkCoordinator } from "../ports/index.js";
import type { NewEvent } from "../store/events/insert-events.js";
import { bufferEvents, type DurableBindings, parkClaim, wakePlans } from "./durable.js";
import { signalEvents } from "./event-signals.js";

/**
 * Wake-ups, events and dropped waits that no ended request has sent yet; `streams`: plans whose events
 * were committed, whose audit-event streams are to be woken.
 */
type Pending = {
  plans: Set<string>;
  events: NewEvent[];
  drops: (() => Promise<void>)[];
  streams: Set<string>;
};

const nothing = (): Pending => ({ plans: new Set(), events: [], drops: [], streams: new Set() });

/**
 * The Workers side of the control plane's coordinator and event-sink ports, shared by every request
 * of an isolate. Wake-ups and events are recorded, not sent, when the app asks: the app calls
 * `notifyWork` without awaiting it, and workerd cancels a request's unawaited I/O once its response
 * is out (and all of it once its client hangs up). The entry point sends what is recorded after each
 * response is built ({@link Outbox.send}), inside that request: events before the response leaves
 * (they are in a Durable Object's storage before the caller hears back); wake-ups, and the parked
 * waits of claims whose client hung up, through `waitUntil`. Whichever request ends first sends what
 * any request recorded, so nothing waits for a request that has not ended.
 */
export class Outbox {
  #pending = nothing();
  readonly coordinator: WorkCoordinator;
  readonly events: EventSink;

  constructor(
    private readonly bindings: DurableBindings,
    options: { recheckMs: number },
  ) {
    this.coordinator = {
      // The plan's Coordinator wakes one parked claim every recheck interval itself.
      rechecks: true,
      waitForWork: (planId, timeoutMs, signal) =>
        parkClaim(bindings, planId, { timeoutMs, fallbackMs: options.recheckMs, signal }, (drop) => {
          this.#pending.drops.push(drop);
        }),
      notifyWork: (planId) => {
        this.#pending.plans.add(planId);
      },
    };
    this.events = {
      append: (events) => {
        this.#pending.events.push(...events);
      },
    };
  }

  /** Records that events of `planIds` were committed: their streams are woken when a request ends. */
  eventsCommitted(planIds: readonly string[]): void {
    for (const planId of planIds) this.#pending.streams.add(planId);
  }

  /**
   * Sends everything recorded so far: events now (awaited), wake-ups in the background of `ctx`.
   * Failures are logged; events that never reached a buffer are lost, like any unacknowledged write.
   */
  async send(ctx: { waitUntil(promise: Promise<unknown>): void }, log: Logger): Promise<void> {
    const { plans, events, drops, streams } = this.#pending;
    if (plans.size === 0 && events.length === 0 && drops.length === 0 && streams.size === 0) return;
    this.#pending = nothing();
    if (streams.size > 0) {
      ctx.waitUntil(
        signalEvents(this.bindings, streams).catch((error: unknown) =>
          log("warn", "coordinator.events_signal_failed", {
            plans: [...streams],
            error: errorSummary(error),
          }),
        ),
      );
    }
    if (plans.size > 0) {
      ctx.waitUntil(
        wakePlans(this.bindings, plans).catch((error: unknown) =>
          log("warn", "coordinator.notify_failed", { plans: [...plans], error: errorSummary(error) }),
        ),
      );
    }
    // A wait left behind would take a later wake-up from a live claim; failing that, the recheck covers.
    for (const drop of drops) ctx.waitUntil(drop().catch(() => {}));
    if (events.length > 0) {
      await bufferEvents(this.bindings, events).catch((error: unknown) =>
        log("error", "event_buffer.append_failed", { events: events.length, error: errorSummary(error) }),
      );
    }
  }
}
