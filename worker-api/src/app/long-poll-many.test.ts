import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import { PlanWaiters } from "../coordinator/plan-waiters.js";
import type { WorkCoordinator } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { createApp } from "./app.js";

const PARKED = 30;

/** A store with nothing ready in any plan: every claim parks. */
const emptyStore = { claimWithPlan: async () => undefined } as unknown as Store;

const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
afterEach(() => {
  process.off("warning", onWarning);
  warnings.length = 0;
});

describe("many parked claims on one server", () => {
  it(`park ${PARKED} claims on the host's stopping signal without a MaxListenersExceededWarning`, async () => {
    process.on("warning", onWarning);
    const waiters = new PlanWaiters();
    const coordinator: WorkCoordinator = {
      waitForWork: (planId, timeoutMs, signal) => waiters.wait(planId, timeoutMs, signal),
      notifyWork: (planId) => void waiters.wake(planId, 1),
      rechecks: true,
    };
    const stopping = new AbortController();
    const app = createApp({
      withStore: (use) => use(emptyStore),
      auth: inProcessAuth,
      coordinator,
      settings: { leaseMs: 60_000, claimWaitMs: 30_000, claimRecheckMs: 30_000 },
      stopping: stopping.signal,
    });
    const replies = Array.from({ length: PARKED }, (_, i) =>
      app.request("/tasks/claim", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ worker_id: `w${i}`, plan_id: "p" }),
      }),
    );
    await vi.waitFor(() => expect(waiters.size).toBe(PARKED), { timeout: 5000 });
    // Node emits the warning on a later tick; give it one before looking.
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(stopping.signal, "abort").length).toBeLessThanOrEqual(1);

    stopping.abort();
    const statuses = (await Promise.all(replies)).map((reply) => reply.status);
    expect(statuses).toEqual(Array(PARKED).fill(204));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});
