import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  await store.upsertWorker({ workerId: "w2", hostname: "h" });
  const task = (id: string) => ({ id, status: "pending", priority: "medium", description: id });
  await store.importPlan(parsePlanObject({ project: "p", tasks: [task("A"), task("B"), task("C")] }, "test"));
});

const { app, post } = routeHarness(() => store);

describe("worker routes: heartbeat", () => {
  it("renews the worker's leases on heartbeat and rejects a path/body mismatch", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const before = Date.parse(body.task.lease_expires_at);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const beat = await post("/workers/w1/heartbeat", { worker_id: "w1" });
    expect(beat.body).toEqual({ ok: true, renewed: 1 });
    const lease = (await store.getTask("p", "A"))?.leaseExpiresAt?.getTime() ?? 0;
    expect(lease).toBeGreaterThan(before);
    const named = { worker_id: "w1", tasks: [{ plan_id: "p", task_id: "A" }] };
    expect((await post("/workers/w1/heartbeat", named)).body).toEqual({ ok: true, renewed: 1 });
    expect((await post("/workers/w1/heartbeat", { worker_id: "w1", tasks: [] })).body).toEqual({
      ok: true,
      renewed: 0,
    });
    expect((await post("/workers/w1/heartbeat", { worker_id: "w2" })).status).toBe(400);
    expect((await post("/workers/ghost/heartbeat", { worker_id: "ghost" })).body).toEqual({
      ok: false,
      renewed: 0,
    });
  });

  it("sends a worker.heartbeat event per named running task to the event buffer", async () => {
    const appended: unknown[] = [];
    const buffered = app({ events: { append: (events) => void appended.push(...events) } });
    await post("/tasks/claim", { worker_id: "w1", plan_id: "p" }, buffered);
    await post("/workers/w1/heartbeat", { worker_id: "w1" }, buffered);
    await post(
      "/workers/ghost/heartbeat",
      { worker_id: "ghost", tasks: [{ plan_id: "p", task_id: "A" }] },
      buffered,
    );
    expect(appended).toEqual([]);
    await post(
      "/workers/w1/heartbeat",
      { worker_id: "w1", tasks: [{ plan_id: "p", task_id: "A" }] },
      buffered,
    );
    const progress = { turns: 3, last_tool: "Edit", phase: "agent" };
    await post(
      "/workers/w1/heartbeat",
      { worker_id: "w1", tasks: [{ plan_id: "p", task_id: "A", progress }] },
      buffered,
    );
    // The stream carries the agent's step, so a dashboard shows it.
    expect(appended).toEqual([
      { planId: "p", taskId: "A", eventType: "worker.heartbeat", payload: { worker_id: "w1" } },
      { planId: "p", taskId: "A", eventType: "worker.heartbeat", payload: { worker_id: "w1", progress } },
    ]);
  });

  it("logs worker.heartbeat only for the named tasks whose lease it renewed", async () => {
    const appended: unknown[] = [];
    const buffered = app({ events: { append: (events) => void appended.push(...events) } });
    await post("/tasks/claim", { worker_id: "w1", plan_id: "p" }, buffered);
    await post("/tasks/claim", { worker_id: "w2", plan_id: "p" }, buffered);
    const tasks = [
      { plan_id: "p", task_id: "A" },
      { plan_id: "p", task_id: "B" },
      { plan_id: "p", task_id: "C" },
      { plan_id: "elsewhere", task_id: "A" },
    ];
    const beat = await post("/workers/w1/heartbeat", { worker_id: "w1", tasks }, buffered);
    expect(beat.body).toEqual({ ok: true, renewed: 1 });
    expect(appended).toEqual([
      { planId: "p", taskId: "A", eventType: "worker.heartbeat", payload: { worker_id: "w1" } },
    ]);
  });
});
