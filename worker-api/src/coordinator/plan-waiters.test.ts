import { describe, expect, it } from "vitest";
import { PlanWaiters } from "./plan-waiters.js";

/** Parks a wait and records when it settles. */
function park(waiters: PlanWaiters, planId: string, timeoutMs = 60_000, signal?: AbortSignal) {
  const state = { settled: false };
  const done = waiters.wait(planId, timeoutMs, signal).then(() => {
    state.settled = true;
  });
  return { state, done };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("PlanWaiters", () => {
  it("wakes the oldest waiters of one plan, as many as asked", async () => {
    const waiters = new PlanWaiters();
    const first = park(waiters, "p");
    const second = park(waiters, "p");
    const third = park(waiters, "p");
    const other = park(waiters, "q");
    expect(waiters.size).toBe(4);

    expect(waiters.wake("p")).toBe(1);
    await tick();
    expect([first.state.settled, second.state.settled, third.state.settled]).toEqual([true, false, false]);

    expect(waiters.wake("p", 5)).toBe(2);
    await tick();
    expect([second.state.settled, third.state.settled, other.state.settled]).toEqual([true, true, false]);
    expect(waiters.plans()).toEqual(["q"]);
    expect(waiters.wake("nobody")).toBe(0);
    waiters.wakeAll();
    await other.done;
    expect(waiters.size).toBe(0);
  });

  it("wakes one waiter of every plan for an unnamed plan", async () => {
    const waiters = new PlanWaiters();
    const p1 = park(waiters, "p");
    const p2 = park(waiters, "p");
    const q1 = park(waiters, "q");
    expect(waiters.wake(undefined)).toBe(2);
    await tick();
    expect([p1.state.settled, p2.state.settled, q1.state.settled]).toEqual([true, false, true]);
    waiters.wakeAll();
  });

  it("settles on its timeout and on abort, leaving no waiter behind", async () => {
    const waiters = new PlanWaiters();
    const timed = park(waiters, "p", 20);
    const abort = new AbortController();
    const aborted = park(waiters, "p", 60_000, abort.signal);
    abort.abort();
    await aborted.done;
    await timed.done;
    expect(waiters.size).toBe(0);
    expect(waiters.plans()).toEqual([]);
    // An aborted signal or a zero bound never parks.
    await waiters.wait("p", 60_000, abort.signal);
    await waiters.wait("p", 0);
    expect(waiters.size).toBe(0);
  });

  it("does not count a woken waiter twice when its timer fires later", async () => {
    const waiters = new PlanWaiters();
    const early = park(waiters, "p", 30);
    const late = park(waiters, "p");
    waiters.wake("p");
    await early.done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(waiters.size).toBe(1);
    expect(late.state.settled).toBe(false);
    waiters.wakeAll();
    await late.done;
  });
});
