import { getEventListeners } from "node:events";
import type { TaskRecord } from "@whilly/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import { type Coordinator, startCoordinator } from "../coordinator/coordinator.js";
import { PlanWaiters } from "../coordinator/plan-waiters.js";
import type { WorkCoordinator } from "../ports/index.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { createApp } from "./app.js";
import type { AppDeps } from "./deps.js";

/** The wait bound of these tests: a claim answered well inside it was woken, not timed out. */
const BOUND_MS = 10_000;
/** A woken claim answers before half the bound: a loaded machine may take a second or more, a timeout takes the whole bound. */
const WOKEN_WITHIN_MS = BOUND_MS / 2;

let store: Store;
let coordinator: Coordinator;
let planSeq = 0;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  for (const workerId of ["w0", "w1", "w2", "w3"]) await store.upsertWorker({ workerId, hostname: "h" });
  // Rechecks far beyond the bound: every wake-up below comes from a signal.
  coordinator = await startCoordinator({ store, recheckMs: 600_000 });
});
afterAll(async () => {
  await coordinator?.close();
  await store?.close();
});

function app(overrides: Partial<AppDeps> = {}) {
  return createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    coordinator,
    settings: { leaseMs: 60_000, claimWaitMs: BOUND_MS, claimRecheckMs: 600_000 },
    ...overrides,
  });
}

type Reply = { status: number; task: TaskRecordJson | undefined; at: number };
type TaskRecordJson = { id: string; status: string; claimed_by: string | null; version: number };

/** Sends a claim; resolves with the answer and the time it arrived. */
async function claim(a: ReturnType<typeof app>, workerId: string, planId: string, signal?: AbortSignal) {
  const response = await a.request("/tasks/claim", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ worker_id: workerId, plan_id: planId }),
    ...(signal ? { signal } : {}),
  });
  const body = response.status === 200 ? ((await response.json()) as { task: TaskRecordJson }) : undefined;
  return { status: response.status, task: body?.task, at: Date.now() } satisfies Reply;
}

async function post(a: ReturnType<typeof app>, path: string, body: object) {
  const response = await a.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { task: TaskRecordJson };
}

/** Waits until `count` claims are parked on the coordinator. */
async function parked(count: number, c: Pick<Coordinator, "waiting"> = coordinator) {
  await vi.waitFor(() => expect(c.waiting).toBe(count), { timeout: 5000 });
}

function newPlanId(): string {
  planSeq += 1;
  return `lp-${planSeq}`;
}

describe("the claim long poll", () => {
  it("is woken by an import, even of a plan that did not exist when it parked", async () => {
    const planId = newPlanId();
    const pending = claim(app(), "w1", planId);
    await parked(1);
    const imported = Date.now();
    await store.importPlan(plan(planId, [task("A")]));
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.task).toMatchObject({ id: "A", claimed_by: "w1" });
    expect(reply.at - imported).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("is woken by a completion that makes a dependent ready", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A"), task("B", { deps: ["A"] })]));
    const a = await claim(app(), "w1", planId);
    expect(a.task?.id).toBe("A");
    const pending = claim(app(), "w2", planId);
    await parked(1);
    const completed = Date.now();
    await post(app(), "/tasks/A/complete", { worker_id: "w1", plan_id: planId, version: a.task?.version });
    const reply = await pending;
    expect(reply.task).toMatchObject({ id: "B", claimed_by: "w2" });
    expect(reply.at - completed).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("is woken by a release", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A")]));
    const a = await claim(app(), "w1", planId);
    const pending = claim(app(), "w2", planId);
    await parked(1);
    const released = Date.now();
    await post(app(), "/tasks/A/release", {
      worker_id: "w1",
      plan_id: planId,
      version: a.task?.version,
      reason: "shutdown",
    });
    const reply = await pending;
    expect(reply.task).toMatchObject({ id: "A", claimed_by: "w2" });
    expect(reply.at - released).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("answers 204 when nothing became ready within its bound", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A")]));
    await claim(app(), "w1", planId);
    const started = Date.now();
    const reply = await claim(
      app({ settings: { leaseMs: 60_000, claimWaitMs: 300, claimRecheckMs: 100 } }),
      "w2",
      planId,
    );
    expect(reply.status).toBe(204);
    expect(reply.at - started).toBeGreaterThanOrEqual(290);
    expect(coordinator.waiting).toBe(0);
  });

  it("wakes one parked claim per ready task, not all of them", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A")]));
    const a = await claim(app(), "w0", planId);
    let claims = 0;
    const counting: Store = {
      ...store,
      claimWithPlan: (input) => {
        claims += 1;
        return store.claimWithPlan(input);
      },
    };
    const countingApp = app({ withStore: (use) => use(counting) });
    const leave = new AbortController();
    const replies = ["w1", "w2", "w3"].map((w) => claim(countingApp, w, planId, leave.signal));
    await parked(3);
    claims = 0;
    await post(app(), "/tasks/A/release", {
      worker_id: "w0",
      plan_id: planId,
      version: a.task?.version,
      reason: "x",
    });
    const first = await Promise.race(replies);
    expect(first.task).toMatchObject({ id: "A" });
    // The winner hands the wake-up on once; that claim finds nothing and parks again.
    await vi.waitFor(() => expect(claims).toBe(2));
    await parked(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(claims).toBe(2);
    leave.abort();
    const all = await Promise.all(replies);
    expect(all.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("drains several newly ready tasks to as many parked claims", async () => {
    const planId = newPlanId();
    const replies = ["w1", "w2", "w3"].map((w) => claim(app(), w, planId));
    await parked(3);
    const imported = Date.now();
    await store.importPlan(plan(planId, [task("A"), task("B"), task("C")]));
    const all = await Promise.all(replies);
    expect(all.map((r) => r.task?.id).sort()).toEqual(["A", "B", "C"]);
    for (const reply of all) expect(reply.at - imported).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("never hands a task to a client that left while parked", async () => {
    const planId = newPlanId();
    const leave = new AbortController();
    const pending = claim(app(), "w1", planId, leave.signal);
    await parked(1);
    leave.abort();
    expect((await pending).status).toBe(204);
    expect(coordinator.waiting).toBe(0);
    await store.importPlan(plan(planId, [task("A")]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.getTask(planId, "A"))?.status).toBe("PENDING");
    const events = await store.listEvents(planId);
    expect(events.filter((e) => e.eventType === "CLAIM")).toEqual([]);
  });

  it("gives a task claimed as its client leaves straight back (RELEASE client_gone)", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A")]));
    const leave = new AbortController();
    let claimed: TaskRecord | undefined;
    // The client hangs up while the claim transaction runs: the claim commits, then the request is gone.
    const leaving: Store = {
      ...store,
      claimWithPlan: async (input) => {
        const got = await store.claimWithPlan(input);
        claimed = got?.task;
        leave.abort();
        return got;
      },
    };
    const reply = await claim(app({ withStore: (use) => use(leaving) }), "w1", planId, leave.signal);
    expect(reply.status).toBe(204);
    expect(claimed?.id).toBe("A");
    expect(await store.getTask(planId, "A")).toMatchObject({ status: "PENDING", claimedBy: undefined });
    const events = (await store.listEvents(planId)).filter((e) => e.taskId === "A");
    expect(events.map((e) => [e.eventType, e.payload.reason ?? null])).toEqual([
      ["task.created", null],
      ["CLAIM", null],
      ["RELEASE", "client_gone"],
    ]);
    expect((await claim(app(), "w2", planId)).task).toMatchObject({ id: "A", claimed_by: "w2" });
  });

  it("answers parked claims with 204 at once when the host stops", async () => {
    const planId = newPlanId();
    const stopping = new AbortController();
    const pending = claim(app({ stopping: stopping.signal }), "w1", planId);
    await parked(1);
    const stopped = Date.now();
    stopping.abort();
    const reply = await pending;
    expect(reply.status).toBe(204);
    expect(reply.at - stopped).toBeLessThan(WOKEN_WITHIN_MS);
  });
});

describe("the host's stopping signal", () => {
  it("keeps no listener per finished claim", async () => {
    const stopping = new AbortController();
    const quick = app({
      stopping: stopping.signal,
      settings: { leaseMs: 60_000, claimWaitMs: 20, claimRecheckMs: 20 },
    });
    const planId = newPlanId();
    await Promise.all(["w1", "w2", "w3"].map((w) => claim(quick, w, planId)));
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(0);
  });
});

describe("a lost wake-up only delays", () => {
  it("is picked up by the coordinator's recheck", async () => {
    // This coordinator hears nothing from the store: the import's signal is lost to it.
    const deaf = await startCoordinator({ recheckMs: 200 });
    try {
      const planId = newPlanId();
      const pending = claim(app({ coordinator: deaf }), "w1", planId);
      await parked(1, deaf);
      await store.importPlan(plan(planId, [task("A")]));
      const reply = await pending;
      expect(reply.task).toMatchObject({ id: "A", claimed_by: "w1" });
    } finally {
      await deaf.close();
    }
  });

  it("is picked up by the route's own recheck with a coordinator that does not recheck", async () => {
    const waiters = new PlanWaiters();
    const bare: WorkCoordinator = {
      waitForWork: (planId, timeoutMs, signal) => waiters.wait(planId, timeoutMs, signal),
      notifyWork: () => {},
    };
    const planId = newPlanId();
    const started = Date.now();
    const pending = claim(
      app({ coordinator: bare, settings: { leaseMs: 60_000, claimWaitMs: BOUND_MS, claimRecheckMs: 200 } }),
      "w1",
      planId,
    );
    await vi.waitFor(() => expect(waiters.size).toBe(1));
    await store.importPlan(plan(planId, [task("A")]));
    const reply = await pending;
    expect(reply.task).toMatchObject({ id: "A" });
    expect(reply.at - started).toBeLessThan(BOUND_MS / 2);
  });
});
