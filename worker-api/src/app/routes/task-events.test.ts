import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storedReadToken } from "../../auth/testing/read-token.js";
import { createTokenAuth } from "../../auth/token-auth.js";
import { eventTypes, plan, task } from "../../store/contract/helpers.contract.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";

const BOOTSTRAP = "bootstrap-secret-for-tests";
let fixture: StoreFixture;
let store: Store;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
  await store.importPlan(plan("p", [task("A")]));
});

const app = () =>
  createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });

async function post(a: ReturnType<typeof app>, path: string, body: unknown, token?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await a.request(path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function register(a: ReturnType<typeof app>) {
  const reply = await post(a, "/workers/register", { hostname: "box" }, BOOTSTRAP);
  return reply.body as { worker_id: string; token: string };
}

/** The failure analysis's finding about task A, as `workerId` reports it. */
const finding = (workerId: string, overrides: object = {}) => ({
  worker_id: workerId,
  plan_id: "p",
  event_type: "triz.contradiction",
  payload: { contradiction_type: "physical", reason: "hot and cold" },
  cost_usd: "0.0125",
  idempotency_key: "triz:A:1",
  ...overrides,
});

describe("POST /tasks/{id}/events", () => {
  it("records the event and its spend once for the worker that ran the task; refuses everyone else", async () => {
    const a = app();
    const w1 = await register(a);
    const w2 = await register(a);
    const claimed = await post(a, "/tasks/claim", { worker_id: w1.worker_id, plan_id: "p" }, w1.token);
    expect(claimed.status).toBe(200);

    expect((await post(a, "/tasks/A/events", finding(w1.worker_id))).status).toBe(401);
    const read = await storedReadToken(store);
    expect([401, 403]).toContain(
      (await post(a, "/tasks/A/events", finding(w1.worker_id), read.token)).status,
    );
    // Another worker's token: it may not act as w1, and w2 itself never ran the task.
    expect((await post(a, "/tasks/A/events", finding(w1.worker_id), w2.token)).status).toBe(403);
    const stranger = await post(a, "/tasks/A/events", finding(w2.worker_id), w2.token);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error_code).toBe("not_task_worker");
    expect((await post(a, "/tasks/Z/events", finding(w1.worker_id), w1.token)).status).toBe(404);
    const badType = await post(a, "/tasks/A/events", finding(w1.worker_id, { event_type: "FAIL" }), w1.token);
    expect(badType.status).toBe(422);
    expect(badType.body.detail).toContain("event_type");
    expect((await store.getPlan("p"))?.spentMicroUsd).toBe(0);

    for (const recorded of [true, false]) {
      const reply = await post(a, "/tasks/A/events", finding(w1.worker_id), w1.token);
      expect(reply).toEqual({ status: 200, body: { recorded } });
    }
    expect((await store.getPlan("p"))?.spentMicroUsd).toBe(12_500);
    expect(await eventTypes(store, "p", "A")).toEqual(["task.created", "CLAIM", "triz.contradiction"]);
  });
});
