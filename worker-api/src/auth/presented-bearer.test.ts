import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import type { AppDeps } from "../app/deps.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { createTokenAuth } from "./token-auth.js";

// The claim and the finishes check a worker's stored bearer inside their own statement instead of a
// separate lookup; these cases pin that the answers stay those of the lookup.

const BOOTSTRAP = "bootstrap-secret-for-tests";

let fixture: StoreFixture;
let store: Store;
let lookups: number;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  const fresh = await fixture.fresh();
  lookups = 0;
  store = {
    ...fresh,
    findWorkerByTokenHash: (hash) => {
      lookups++;
      return fresh.findWorkerByTokenHash(hash);
    },
  };
  const plan = {
    project: "p",
    tasks: ["A", "B"].map((id) => ({ id, status: "pending", priority: "high", description: id })),
  };
  await store.importPlan(parsePlanObject(plan, "test"));
});

function app() {
  const deps: AppDeps = {
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  };
  return createApp(deps);
}

async function post(a: ReturnType<typeof app>, path: string, body: object, token?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await a.request(path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

async function register(a: ReturnType<typeof app>): Promise<{ worker_id: string; token: string }> {
  return (await post(a, "/workers/register", { hostname: "box" }, BOOTSTRAP)).body;
}

describe("a worker's bearer checked in the operation's own statement", () => {
  it("claims and completes without a separate lookup", async () => {
    const a = app();
    const { worker_id, token } = await register(a);
    const claimed = await post(a, "/tasks/claim", { worker_id, plan_id: "p", start: true }, token);
    expect(claimed.status).toBe(200);
    const fence = { worker_id, plan_id: "p", version: claimed.body.task.version };
    expect((await post(a, `/tasks/${claimed.body.task.id}/complete`, fence, token)).status).toBe(200);
    expect(lookups).toBe(0);
  });

  it("a complete or fail with a revoked token: 401 invalid token, and the task unchanged", async () => {
    const a = app();
    const { worker_id, token } = await register(a);
    const claimed = await post(a, "/tasks/claim", { worker_id, plan_id: "p" }, token);
    const fence = { worker_id, plan_id: "p", version: claimed.body.task.version };
    // Revoking releases the task; the stored-hash check must still answer before the fence's 409.
    await store.revokeWorker(worker_id);
    const events = await store.listEvents("p");
    for (const [path, body] of [
      ["/tasks/A/complete", fence],
      ["/tasks/A/fail", { ...fence, reason: "r" }],
      ["/tasks/claim", { worker_id, plan_id: "p" }],
      ["/tasks/claim", { worker_id, plan_id: "no-such-plan" }],
    ] as const) {
      const reply = await post(a, path, body, token);
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ error_code: "missing_or_invalid_bearer", detail: "invalid token" });
    }
    expect(await store.listEvents("p")).toEqual(events);
    expect(await store.getTask("p", "A")).toMatchObject({ status: "PENDING" });
  });

  it("a stale complete with a live token is still a 409, and another worker's id still a 403", async () => {
    const a = app();
    const mine = await register(a);
    const theirs = await register(a);
    const claimed = await post(a, "/tasks/claim", { worker_id: mine.worker_id, plan_id: "p" }, mine.token);
    const stale = { worker_id: mine.worker_id, plan_id: "p", version: claimed.body.task.version + 5 };
    expect((await post(a, "/tasks/A/complete", stale, mine.token)).status).toBe(409);
    const forged = { worker_id: theirs.worker_id, plan_id: "p", version: claimed.body.task.version };
    expect((await post(a, "/tasks/A/complete", forged, mine.token)).status).toBe(403);
    expect(await store.getTask("p", "A")).toMatchObject({ status: "CLAIMED", claimedBy: mine.worker_id });
  });
});
