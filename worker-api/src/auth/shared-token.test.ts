import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import type { AppDeps } from "../app/deps.js";
import type { Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { createTokenAuth } from "./token-auth.js";

// Workers of the deprecated shared token (WHILLY_WORKER_TOKEN) never register: they pick their own id
// (`whilly-worker --token "$SHARED" --worker-id shared-A`), so the control plane registers that id the
// first time the shared token acts for it.

const BOOTSTRAP = "bootstrap-secret-for-tests";
const SHARED = "legacy-shared-token-for-tests";

let fixture: StoreFixture;
let store: Store;
let logged: { event: string; fields?: object }[];
const log: Logger = (_level, event, fields) => logged.push({ event, ...(fields ? { fields } : {}) });

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  logged = [];
  const tasks = ["A", "B"].map((id) => ({ id, status: "pending", priority: "high", description: id }));
  await store.importPlan(parsePlanObject({ project: "p", tasks }, "test"));
});

function app(shared = true) {
  const deps: AppDeps = {
    withStore: (use) => use(store),
    auth: createTokenAuth({
      bootstrapToken: BOOTSTRAP,
      legacyToken: shared ? SHARED : undefined,
      suppressLegacyWarning: true,
    }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    log,
  };
  return createApp(deps);
}

async function post(a: ReturnType<typeof app>, path: string, body: object, token = SHARED) {
  const response = await a.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

describe("the shared token and a worker id nobody registered", () => {
  it("a claim registers the worker on first use and gets a task it can complete", async () => {
    const a = app();
    const claimed = await post(a, "/tasks/claim", { worker_id: "shared-A", plan_id: "p", start: true });
    expect(claimed.status).toBe(200);
    expect(claimed.body.task).toMatchObject({ id: "A", status: "IN_PROGRESS", claimed_by: "shared-A" });
    const workers = await store.listWorkers();
    expect(workers).toMatchObject([{ workerId: "shared-A", hostname: "unknown", status: "online" }]);
    expect(logged).toContainEqual({
      event: "worker.registered",
      fields: { worker_id: "shared-A", hostname: "unknown", credential: "shared_token" },
    });
    const fence = { worker_id: "shared-A", plan_id: "p", version: claimed.body.task.version };
    expect((await post(a, "/tasks/A/complete", fence)).status).toBe(200);
    // Registered once: later calls find the worker.
    expect((await post(a, "/tasks/claim", { worker_id: "shared-A", plan_id: "p" })).status).toBe(200);
    expect(logged.filter((l) => l.event === "worker.registered")).toHaveLength(1);
  });

  it("a heartbeat registers the worker on first use and answers ok", async () => {
    const reply = await post(app(), "/workers/shared-B/heartbeat", { worker_id: "shared-B" });
    expect(reply).toEqual({ status: 200, body: { ok: true, renewed: 0 } });
    expect((await store.listWorkers()).map((w) => w.workerId)).toEqual(["shared-B"]);
  });

  it("keeps a registered worker's hostname and token, and the owner checks still apply", async () => {
    const a = app();
    const registered = await post(a, "/workers/register", { hostname: "build-7" }, BOOTSTRAP);
    const { worker_id } = registered.body;
    const claimed = await post(a, "/tasks/claim", { worker_id, plan_id: "p" });
    expect(claimed.status).toBe(200);
    expect(await store.listWorkers()).toMatchObject([{ workerId: worker_id, hostname: "build-7" }]);
    const theft = await post(a, "/tasks/A/complete", {
      worker_id: "shared-C",
      plan_id: "p",
      version: claimed.body.task.version,
    });
    expect(theft.status).toBe(409);
    expect(theft.body.error_code).toBe("not_owner");
    expect((await store.listWorkers()).map((w) => w.workerId)).toEqual([worker_id]);
  });

  it("registers nobody without a configured shared token", async () => {
    const reply = await post(app(false), "/tasks/claim", { worker_id: "shared-A", plan_id: "p" });
    expect(reply.status).toBe(401);
    expect(await store.listWorkers()).toEqual([]);
  });
});
