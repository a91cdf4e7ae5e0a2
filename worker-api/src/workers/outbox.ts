import type { EventSink, Logger, WorkCoordinator } from "../app/deps.js";
import type { NewEvent } from "../store/events/insert-events.js";
import { bufferEvents, type DurableBindings, parkClaim, wakePlans } from "./durable.js";

/** Wake-ups and events the app asked for that no ended request has sent yet. */
type Pending = { plans: Set<string>; events: NewEvent[] };

/**
 * The Workers side of the control plane's coordinator and event-sink ports, shared by every request
 * of an isolate. Wake-ups and events are recorded, not sent, when the app asks: the app calls
 * `notifyWork` without awaiting it, and workerd cancels a request's unawaited I/O once its response
 * is out. The entry point sends what is recorded after each response is built ({@link Outbox.send}),
 * inside that request: events before the response leaves (they are in a Durable Object's storage
 * before the caller hears back), wake-ups through `waitUntil`. Whichever request ends first sends what
 * any request recorded, so nothing waits for a request that has not ended.
 */
export class Outbox {
  #pending: Pending = { plans: new Set(), events: [] };
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
        parkClaim(bindings, planId, timeoutMs, options.recheckMs, signal),
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

  /**
   * Sends everything recorded so far: events now (awaited), wake-ups in the background of `ctx`.
   * Failures are logged; events that never reached a buffer are lost, like any unacknowledged write.
   */
  async send(ctx: { waitUntil(promise: Promise<unknown>): void }, log: Logger): Promise<void> {
    const { plans, events } = this.#pending;
    if (plans.size === 0 && events.length === 0) return;
    this.#pending = { plans: new Set(), events: [] };
    if (plans.size > 0) {
      ctx.waitUntil(
        wakePlans(this.bindings, plans).catch((error: unknown) =>
          log("warn", "coordinator.notify_failed", { plans: [...plans], error: String(error) }),
        ),
      );
    }
    if (events.length > 0) {
      await bufferEvents(this.bindings, events).catch((error: unknown) =>
        log("error", "event_buffer.append_failed", { events: events.length, error: String(error) }),
      );
    }
  }
}
