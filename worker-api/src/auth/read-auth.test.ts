import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { mintReadToken } from "./read-token.js";
import { createTokenAuth, type TokenAuthOptions } from "./token-auth.js";

// Who may read the read API and the OpenAPI document, and what a worker route tells a caller whose
// bearer was revoked.

const BOOTSTRAP = "bootstrap-secret-for-read-tests";
const ADMIN = "admin-secret-for-read-tests-0123";
const READ_PATHS = [
  "/api/v1/plans",
  "/api/v1/plans/p",
  "/api/v1/plans/p/tasks",
  "/api/v1/plans/p/events",
  "/api/v1/workers",
  "/openapi.json",
];

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  const plan = { project: "p", tasks: [{ id: "A", status: "pending", priority: "high", description: "a" }] };
  await store.importPlan(parsePlanObject(plan, "test"));
});

function app(options: Partial<TokenAuthOptions> = {}) {
  return createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN, ...options }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
}

async function get(a: ReturnType<typeof app>, path: string, token?: string) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await a.request(path, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function post(a: ReturnType<typeof app>, path: string, body: string, token: string) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const response = await a.request(path, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function readToken(): Promise<{ id: string; token: string }> {
  const minted = await mintReadToken();
  await store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash, label: "dashboard" });
  return minted;
}

async function workerToken(a: ReturnType<typeof app>): Promise<{ workerId: string; token: string }> {
  const reply = await post(a, "/workers/register", '{"hostname":"box"}', BOOTSTRAP);
  return { workerId: String(reply.body.worker_id), token: String(reply.body.token) };
}

describe("the read API's credentials", () => {
  it("refuses no token, a wrong one, the bootstrap token and a worker's bearer with 401", async () => {
    const a = app();
    const worker = await workerToken(a);
    for (const path of READ_PATHS) {
      const tokens = [undefined, "wrong-token-0123456789", BOOTSTRAP];
      // The plan summary is the one thing a worker reads: its --plan check.
      for (const token of path === "/api/v1/plans/p" ? tokens : [...tokens, worker.token]) {
        const reply = await get(a, path, token);
        expect(reply.status, `${path} with ${token}`).toBe(401);
        expect(reply.body.error_code).toBe("missing_or_invalid_read_token");
        expect(JSON.stringify(reply.body)).not.toContain('"tasks"');
      }
    }
  });

  it("lets a live worker read its plan's summary only, and not once revoked", async () => {
    const a = app();
    const worker = await workerToken(a);
    const summary = await get(a, "/api/v1/plans/p", worker.token);
    expect(summary.status).toBe(200);
    expect(summary.body.counts).toMatchObject({ PENDING: 1 });
    await store.revokeWorker(worker.workerId);
    const revoked = await get(a, "/api/v1/plans/p", worker.token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error_code).toBe("missing_or_invalid_read_token");
  });

  it("answers the admin token and a live read token", async () => {
    const a = app();
    const { token } = await readToken();
    for (const path of READ_PATHS) {
      expect((await get(a, path, ADMIN)).status, path).toBe(200);
      expect((await get(a, path, token)).status, path).toBe(200);
    }
  });

  it("refuses a read token from its revocation on", async () => {
    const a = app();
    const { id, token } = await readToken();
    expect((await get(a, "/api/v1/plans/p/tasks", token)).status).toBe(200);
    expect(await store.revokeReadToken(id)).toEqual({ found: true, wasLive: true });
    const reply = await get(a, "/api/v1/plans/p/tasks", token);
    expect(reply.status).toBe(401);
    expect(reply.body.detail).toBe("invalid read token");
    expect(await store.revokeReadToken(id)).toEqual({ found: true, wasLive: false });
  });

  it("answers anyone with WHILLY_PUBLIC_READ=1, and /health always", async () => {
    const open = app({ publicRead: true });
    for (const path of READ_PATHS) expect((await get(open, path)).status, path).toBe(200);
    const closed = app({ adminToken: undefined });
    expect((await get(closed, "/health")).status).toBe(200);
    expect((await get(closed, "/api/v1/plans", ADMIN)).status).toBe(401);
  });

  it("refuses an admin token that is short or equal to the bootstrap token at build time", () => {
    expect(() => app({ adminToken: "short" })).toThrow(/WHILLY_ADMIN_TOKEN is too short/);
    expect(() => app({ adminToken: BOOTSTRAP })).toThrow(/must differ/);
  });

  it("answers 404 for the tasks of an unknown plan", async () => {
    const reply = await get(app(), "/api/v1/plans/nope/tasks", ADMIN);
    expect(reply.status).toBe(404);
    expect(reply.body.error_code).toBe("plan_not_found");
  });
});

describe("worker routes with a revoked bearer", () => {
  const BAD_BODIES = ["{}", '{"worker_id": 7}', "not json", '{"worker_id":"W","version":1,"cost_usd":"-5"}'];

  it("answer 401, not the body's 422, on every route", async () => {
    const a = app();
    const { workerId, token } = await workerToken(a);
    await store.revokeWorker(workerId);
    const routes = [
      "/tasks/claim",
      "/tasks/A/start",
      "/tasks/A/complete",
      "/tasks/A/fail",
      "/tasks/A/release",
    ];
    for (const path of [...routes, `/workers/${workerId}/heartbeat`]) {
      for (const body of BAD_BODIES) {
        const reply = await post(a, path, body.replace('"W"', JSON.stringify(workerId)), token);
        expect(reply.status, `${path} ${body}`).toBe(401);
        expect(reply.body.error_code).toBe("missing_or_invalid_bearer");
      }
    }
  });

  it("a live bearer with a bad body still gets 422", async () => {
    const a = app();
    const { token } = await workerToken(a);
    expect((await post(a, "/tasks/A/complete", "{}", token)).status).toBe(422);
  });
});

describe("a task route naming an unknown task with its plan_id", () => {
  it("answers 404 task_not_found", async () => {
    const a = app();
    const { workerId, token } = await workerToken(a);
    for (const verb of ["start", "complete", "fail", "release"]) {
      const reason = verb === "fail" || verb === "release" ? { reason: "r" } : {};
      const body = JSON.stringify({ worker_id: workerId, plan_id: "p", version: 1, ...reason });
      const reply = await post(a, `/tasks/NOPE/${verb}`, body, token);
      expect(reply.status, `${verb} ${JSON.stringify(reply.body)}`).toBe(404);
      expect(reply.body.error_code).toBe("task_not_found");
    }
  });

  it("answers 404 for an id Postgres cannot store (NUL, lone surrogate), not a driver error", async () => {
    const a = app();
    const { workerId, token } = await workerToken(a);
    for (const id of ["NOPE%00x", "NOPE%ED%A0%80"]) {
      const body = JSON.stringify({ worker_id: workerId, plan_id: "p", version: 1 });
      const reply = await post(a, `/tasks/${id}/complete`, body, token);
      expect([reply.status, reply.body.error_code], JSON.stringify(reply.body)).toEqual([
        404,
        "task_not_found",
      ]);
    }
    const inPlan = JSON.stringify({ worker_id: workerId, plan_id: "p\u0000", version: 1 });
    expect((await post(a, "/tasks/A/complete", inPlan, token)).status).toBe(404);
  });
});
