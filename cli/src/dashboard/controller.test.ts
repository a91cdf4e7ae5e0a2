import { describe, expect, it } from "vitest";
import type { EventView } from "../events/event-view.js";
import { DashboardController } from "./controller.js";
import type { DashboardSnapshot } from "./model.js";
import type { DashboardSource } from "./sources.js";

// The controller over an in-memory source whose snapshots the test answers when it likes, so an event
// can arrive while a snapshot is being read.

const snapshotOf = (status: string, version: number): DashboardSnapshot => ({
  plan: { id: "p", name: "demo", budgetMicroUsd: null, spentMicroUsd: 0 },
  tasks: [
    {
      id: "A",
      status,
      priority: "high",
      description: "do A",
      claimedBy: null,
      attempts: status === "PENDING" ? 0 : 1,
      version,
    },
  ],
});

/** A source that hands each snapshot request to the test, and lets it emit events. */
function manualSource() {
  const pending: ((snapshot: DashboardSnapshot) => void)[] = [];
  let emit: ((event: EventView) => void) | undefined;
  const source: DashboardSource = {
    listPlans: async () => [{ id: "p", name: "demo" }],
    snapshot: () => new Promise((resolve) => pending.push(resolve)),
    events: (_plan, onEvent, _follow, signal) => {
      emit = onEvent;
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  };
  const answer = async (snapshot: DashboardSnapshot) => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()?.(snapshot);
  };
  return { source, answer, emit: (event: EventView) => emit?.(event) };
}

const claim = (id: number): EventView => ({
  id,
  plan_id: "p",
  task_id: "A",
  worker_id: "w-1",
  event_type: "CLAIM",
  payload: { worker_id: "w-1", version: 1 },
  detail: null,
  created_at: "2026-01-01T00:00:01.000Z",
});

describe("the dashboard's controller", () => {
  it("keeps an event that arrived while a snapshot was being read", async () => {
    const { source, answer, emit } = manualSource();
    const controller = new DashboardController(source, "p", 3_600_000, undefined);
    const started = controller.start(true);
    await answer(snapshotOf("PENDING", 0));
    await started;

    const refreshed = controller.refresh();
    emit(claim(7));
    // The snapshot was read before the claim committed, and answers after it arrived.
    await answer(snapshotOf("PENDING", 0));
    await refreshed;
    controller.stop();
    expect(controller.view().events.map((e) => e.id)).toEqual([7]);
    expect(controller.view().tasks[0]).toMatchObject({ status: "CLAIMED", claimedBy: "w-1", version: 1 });
  });
});
