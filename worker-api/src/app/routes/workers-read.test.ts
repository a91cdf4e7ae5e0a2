import { workerListResponseSchema } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storedReadToken } from "../../auth/testing/read-token.js";
import { createTokenAuth } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";

// `GET /api/v1/workers`: who is registered and whether an operator paused them, for readers only.

const BOOTSTRAP = "bootstrap-secret-for-workers-read";
const ADMIN = "admin-secret-for-workers-read-0123";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
});

const app = () =>
  createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });

async function call(a: ReturnType<typeof app>, path: string, token?: string, method = "GET") {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (method === "POST") headers["content-type"] = "application/json";
  const body = path === "/workers/register" ? { body: '{"hostname":"box-1"}' } : {};
  const response = await a.request(path, { method, headers, ...body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("GET /api/v1/workers", () => {
  it("lists the workers with what they advertised, and the pause, for a read token", async () => {
    const a = app();
    const registered = await call(a, "/workers/register", BOOTSTRAP, "POST");
    const workerId = String(registered.body.worker_id);
    await store.upsertWorker({ workerId: "w-old", hostname: "box-0" });
    const capabilities = { agents: ["claude", "codex"], tags: ["gpu"] };
    await store.createPlan({ id: "p", name: "P" });
    await store.claim({ planId: "p", workerId, leaseMs: 60_000, capabilities });
    const minted = await storedReadToken(store, "dash");

    const reply = await call(a, "/api/v1/workers", minted.token);
    expect(reply.status).toBe(200);
    const body = workerListResponseSchema.parse(reply.body);
    const byId = new Map(body.workers.map((w) => [w.worker_id, w]));
    expect(byId.get(workerId)).toMatchObject({ hostname: "box-1", status: "online", ...capabilities });
    expect(byId.get("w-old")).toMatchObject({ hostname: "box-0", agents: [], tags: [] });
    const [stored] = (await store.listWorkers()).filter((w) => w.workerId === workerId);
    expect(byId.get(workerId)?.last_heartbeat).toBe(stored?.lastHeartbeat.toISOString());
    expect(byId.get(workerId)?.registered_at).toBe(stored?.registeredAt.toISOString());
    expect(body.workers.map((w) => w.worker_id)).toEqual([...byId.keys()].sort());
    expect(body.pause).toEqual({ paused: false, paused_at: null, reason: null });

    await call(a, "/api/v1/workers/pause", ADMIN, "POST");
    const paused = workerListResponseSchema.parse((await call(a, "/api/v1/workers", ADMIN)).body);
    expect(paused.pause).toMatchObject({ paused: true, reason: "admin" });
    expect(Date.parse(paused.pause.paused_at ?? "")).not.toBeNaN();
  });

  it("refuses no token, a wrong one and a worker's bearer with 401", async () => {
    const a = app();
    const registered = await call(a, "/workers/register", BOOTSTRAP, "POST");
    for (const token of [undefined, "wrong-token-0123456789", BOOTSTRAP, String(registered.body.token)]) {
      const reply = await call(a, "/api/v1/workers", token);
      expect([reply.status, reply.body.error_code], String(token)).toEqual([
        401,
        "missing_or_invalid_read_token",
      ]);
      expect(JSON.stringify(reply.body)).not.toContain("box-1");
    }
  });
});
