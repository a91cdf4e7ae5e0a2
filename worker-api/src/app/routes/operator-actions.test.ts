import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { inProcessAuth } from "../../auth/in-process.js";
import { type Coordinator, startCoordinator } from "../../coordinator/coordinator.js";
import { plan, task } from "../../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../../store/open/embedded.js";
import type { Store } from "../../store/store.js";
import { createApp } from "../app.js";
import type { AppDeps } from "../deps.js";

// The operator actions over HTTP (in-process auth: the auth matrix covers who may call them), and how
// claims behave under a pause: a paused worker's claim long-polls to 204, its running task finishes,
// and a resume wakes a parked claim at once.

/** A claim's wait bound: far beyond the test, so a claim answered 200 was woken, not timed out. */
const BOUND_MS = 60_000;

let store: Store;
let coordinator: Coordinator;
let planNo = 0;
let planId: string;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  for (const workerId of ["w1", "w2", "w-new"]) await store.upsertWorker({ workerId, hostname: "h" });
  // Rechecks far beyond the bound: every wake-up below comes from a signal.
  coordinator = await startCoordinator({ store, recheckMs: 600_000 });
});
afterAll(async () => {
  await coordinator?.close();
  await store?.close();
});
beforeEach(async () => {
  await store.resumeWorkers();
  planId = `ops-${++planNo}`;
  await store.importPlan(plan(planId, [task("A"), task("B")], { maxAttempts: 1 }));
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

type Reply = { status: number; body: ReturnType<typeof JSON.parse> };

async function post(a: ReturnType<typeof app>, path: string, body?: object): Promise<Reply> {
  const response = await a.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const claim = (a: ReturnType<typeof app>, workerId: string) =>
  post(a, "/tasks/claim", { worker_id: workerId, plan_id: planId, start: true });

describe("operator actions over HTTP", () => {
  it("release takes a running task back; its worker's late complete gets 409 and another worker claims it", async () => {
    const a = app();
    const claimed = await claim(a, "w1");
    expect(claimed.body.task).toMatchObject({ id: "A", status: "IN_PROGRESS" });
    const released = await post(a, `/api/v1/plans/${planId}/tasks/A/release`);
    expect(released).toMatchObject({ status: 200, body: { task: { id: "A", status: "PENDING" } } });
    const late = await post(a, "/tasks/A/complete", {
      worker_id: "w1",
      plan_id: planId,
      version: claimed.body.task.version,
    });
    expect(late.status).toBe(409);
    expect((await claim(a, "w2")).body.task).toMatchObject({ id: "A", claimed_by: "w2" });
  });

  it("reset retries a FAILED task and answers 409 with the actual status, 404 for a missing task or plan", async () => {
    const a = app();
    const claimed = await claim(a, "w1");
    const failed = await post(a, "/tasks/A/fail", {
      worker_id: "w1",
      plan_id: planId,
      version: claimed.body.task.version,
      reason: "tests failed",
    });
    expect(failed.body.task.status).toBe("FAILED");
    const reset = await post(a, `/api/v1/plans/${planId}/tasks/A/reset`);
    expect(reset).toMatchObject({ status: 200, body: { task: { id: "A", status: "PENDING", attempts: 0 } } });
    const again = await post(a, `/api/v1/plans/${planId}/tasks/A/reset`);
    expect(again).toMatchObject({
      status: 409,
      body: { error_code: "version_conflict", task_id: "A", actual_status: "PENDING" },
    });
    expect(await post(a, `/api/v1/plans/${planId}/tasks/nope/release`)).toMatchObject({
      status: 404,
      body: { error_code: "task_not_found", task_id: "nope" },
    });
    expect(await post(a, "/api/v1/plans/no-plan/tasks/A/reset")).toMatchObject({
      status: 404,
      body: { error_code: "plan_not_found" },
    });
  });

  it("a paused worker's claim waits out the long poll and gets 204 while its running task completes", async () => {
    const a = app();
    const running = await claim(a, "w1");
    const paused = await post(a, "/api/v1/workers/pause");
    expect(paused.body).toMatchObject({ paused: true, reason: "admin" });
    expect((await a.request("/api/v1/workers/pause")).status).toBe(200);
    // A short bound of its own: the paused claim parks like one with nothing ready, then answers 204.
    const shortPoll = app({ settings: { leaseMs: 60_000, claimWaitMs: 200, claimRecheckMs: 600_000 } });
    expect((await claim(shortPoll, "w1")).status).toBe(204);
    const done = await post(a, "/tasks/A/complete", {
      worker_id: "w1",
      plan_id: planId,
      version: running.body.task.version,
    });
    expect(done.body.task.status).toBe("DONE");
    expect((await claim(shortPoll, "w-new")).status).toBe(204);
    expect((await store.getTask(planId, "B"))?.status).toBe("PENDING");
  });

  it("a resume wakes a parked claim at once, and says the workers run again", async () => {
    const a = app();
    await post(a, "/api/v1/workers/pause");
    const waiting = claim(a, "w1");
    await vi.waitFor(() => expect(coordinator.waiting).toBe(1), { timeout: 5000 });
    const resumed = await post(a, "/api/v1/workers/resume");
    expect(resumed.body).toEqual({ paused: false, paused_at: null, reason: null, resumed: true });
    // The bound is a minute and rechecks ten: a task within the test's time came from the wake-up.
    expect((await waiting).body.task).toMatchObject({ id: "A", claimed_by: "w1" });
    const state = await a.request("/api/v1/workers/pause");
    expect(await state.json()).toEqual({ paused: false, paused_at: null, reason: null });
  });
});
