import { DurableObject } from "cloudflare:workers";
import { PlanWaiters } from "../coordinator/plan-waiters.js";
import { EventWaiters } from "./event-waiters.js";
import { MAX_CLAIM_WAIT_MS, settingsFor } from "./settings.js";

/** Each instance serves one plan, so all its waiters share one key. */
const PLAN = "plan";

/**
 * Parks the long polls of one plan (one instance per plan: `idFromName(planId)`). A claim that found
 * nothing ready calls {@link Coordinator.waitForWork}; anything that may make a task ready (import, a
 * completion, a release, the sweep) calls {@link Coordinator.notifyWork}.
 *
 * Wake-ups are counted, as on Node ({@link PlanWaiters}): one notification wakes the claim that has
 * waited longest, and a woken claim that gets a task wakes the next, so ready tasks drain down the
 * queue without a thundering herd. While claims are parked, the oldest is also woken every
 * `WHILLY_CLAIM_RECHECK` to look at the database, so a lost notification only delays. Waiters live in
 * memory: after an eviction or restart a parked claim's call fails and its request re-checks the
 * database. Parked claims hold no database connection.
 *
 * It also parks the plan's live audit-event streams ({@link Coordinator.waitForEvents}), woken by
 * {@link Coordinator.notifyEvents} after each commit that wrote the plan's events; the instance named
 * `ALL_PLANS` (event-signals.ts) parks the streams of every plan.
 */
export class Coordinator extends DurableObject {
  readonly #waiters = new PlanWaiters();
  readonly #tickets = new Map<string, AbortController>();
  readonly #streams = new EventWaiters();
  #recheck: ReturnType<typeof setInterval> | undefined;

  /**
   * Resolves when a notification wakes this claim, on the recheck tick, after `timeoutMs` (capped at
   * 30 s), or when {@link abandon} is called with the same `ticket`, whichever comes first.
   * @param ticket names this wait for {@link abandon}; unique per call.
   */
  async waitForWork(timeoutMs: number, ticket?: string): Promise<void> {
    const gone = new AbortController();
    if (ticket !== undefined) this.#tickets.set(ticket, gone);
    const wait = this.#waiters.wait(PLAN, Math.min(Math.max(0, timeoutMs), MAX_CLAIM_WAIT_MS), gone.signal);
    this.#startRecheck();
    try {
      await wait;
    } finally {
      if (ticket !== undefined) this.#tickets.delete(ticket);
    }
  }

  /**
   * Ends the wait of a claim whose client hung up. Its call cannot be cancelled from the caller's side,
   * and a parked waiter nobody listens to would take the next wake-up from a live claim.
   */
  async abandon(ticket: string): Promise<void> {
    this.#tickets.get(ticket)?.abort();
  }

  /**
   * Wakes the `count` claims that waited longest (default 1: one per task that became ready).
   * @returns how many were woken.
   */
  async notifyWork(count = 1): Promise<number> {
    return this.#waiters.wake(PLAN, count);
  }

  /** How many claims are parked here now (for tests and diagnostics). */
  async parkedCount(): Promise<number> {
    return this.#waiters.size;
  }

  /** The generation of event signals now (see {@link EventWaiters}): a stream takes it before its first read. */
  async eventGeneration(): Promise<string> {
    return this.#streams.generation;
  }

  /**
   * Parks an audit-event stream until the next {@link notifyEvents}, `timeoutMs` (the stream's poll) or
   * {@link abandonEventWait} of `ticket`; at once when `seen` is no longer the current generation.
   * @returns the generation the stream has now seen.
   */
  async waitForEvents(seen: string | undefined, timeoutMs: number, ticket?: string): Promise<string> {
    return this.#streams.wait(seen, timeoutMs, ticket);
  }

  /** Ends a stream's wait that its stream no longer listens to (it moved on, or its client left). */
  async abandonEventWait(ticket: string): Promise<void> {
    this.#streams.abandon(ticket);
  }

  /** Events were committed: wakes every parked stream. @returns how many were woken. */
  async notifyEvents(): Promise<number> {
    return this.#streams.notify();
  }

  /** How many audit-event streams are parked here now (for tests and diagnostics). */
  async parkedStreams(): Promise<number> {
    return this.#streams.size;
  }

  /** The timer runs only while claims are parked, so an idle object can be evicted. */
  #startRecheck(): void {
    if (this.#recheck !== undefined || this.#waiters.size === 0) return;
    const settings = settingsFor(this.env);
    const everyMs = settings instanceof Error ? MAX_CLAIM_WAIT_MS : settings.app.claimRecheckMs;
    const timer = setInterval(() => {
      if (this.#waiters.size > 0) {
        this.#waiters.wake(PLAN, 1);
        return;
      }
      clearInterval(timer);
      this.#recheck = undefined;
    }, everyMs);
    this.#recheck = timer;
  }
}
