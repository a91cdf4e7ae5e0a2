import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { createApp } from "../app/app.js";
import { inProcessAuth } from "../auth/in-process.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openPostgresStore } from "../store/open/postgres.js";
import type { Store } from "../store/store.js";
import { type Coordinator, startCoordinator } from "./coordinator.js";

/** A claim answered well inside this bound was woken, not timed out. */
const BOUND_MS = 10_000;
const WOKEN_WITHIN_MS = 1000;

/** One control-plane replica: its own pool, coordinator and app over the shared database. */
type Replica = { store: Store; coordinator: Coordinator; app: ReturnType<typeof createApp> };

async function replica(url: string, options: { deaf?: boolean; recheckMs?: number } = {}): Promise<Replica> {
  const store = await openPostgresStore(url, { max: 4 });
  const coordinator = await startCoordinator({
    store: options.deaf ? undefined : store,
    recheckMs: options.recheckMs ?? 600_000,
  });
  const app = createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    coordinator,
    settings: { leaseMs: 60_000, claimWaitMs: BOUND_MS, claimRecheckMs: 600_000 },
  });
  return { store, coordinator, app };
}

async function close(r: Replica | undefined) {
  await r?.coordinator.close();
  await r?.store.close();
}

async function call(r: Replica, path: string, body: object) {
  const response = await r.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json =
    response.status === 200
      ? ((await response.json()) as { task: { id: string; version: number } })
      : undefined;
  return { status: response.status, task: json?.task, at: Date.now() };
}

describe.skipIf(!postgresAvailable())("replicas sharing one Postgres", () => {
  let database: TestDatabase;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    database = await createTestDatabase();
    a = await replica(database.url);
    b = await replica(database.url);
    expect([a.coordinator.listensToStore, b.coordinator.listensToStore]).toEqual([true, true]);
    for (const workerId of ["w1", "w2"]) await a.store.upsertWorker({ workerId, hostname: "h" });
  });
  afterAll(async () => {
    await close(a);
    await close(b);
    await database?.drop();
  });

  it("wake each other: a claim parked on one is woken by an import through the other", async () => {
    const pending = call(a, "/tasks/claim", { worker_id: "w1", plan_id: "imp" });
    await vi.waitFor(() => expect(a.coordinator.waiting).toBe(1));
    const imported = Date.now();
    await b.store.importPlan(plan("imp", [task("A")]));
    const reply = await pending;
    expect(reply.task?.id).toBe("A");
    expect(reply.at - imported).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("wake each other: a completion on one readies the dependent a claim parked on the other waits for", async () => {
    await a.store.importPlan(plan("dag", [task("A"), task("B", { deps: ["A"] })]));
    const first = await call(b, "/tasks/claim", { worker_id: "w1", plan_id: "dag" });
    expect(first.task?.id).toBe("A");
    const pending = call(a, "/tasks/claim", { worker_id: "w2", plan_id: "dag" });
    await vi.waitFor(() => expect(a.coordinator.waiting).toBe(1));
    const completed = Date.now();
    const done = await call(b, "/tasks/A/complete", {
      worker_id: "w1",
      plan_id: "dag",
      version: first.task?.version,
    });
    expect(done.status).toBe(200);
    const reply = await pending;
    expect(reply.task?.id).toBe("B");
    expect(reply.at - completed).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it("pick up a lost notification on the recheck", async () => {
    const deaf = await replica(database.url, { deaf: true, recheckMs: 250 });
    try {
      expect(deaf.coordinator.listensToStore).toBe(false);
      const pending = call(deaf, "/tasks/claim", { worker_id: "w1", plan_id: "lost" });
      await vi.waitFor(() => expect(deaf.coordinator.waiting).toBe(1));
      const imported = Date.now();
      await b.store.importPlan(plan("lost", [task("A")]));
      const reply = await pending;
      expect(reply.task?.id).toBe("A");
      expect(reply.at - imported).toBeLessThan(BOUND_MS / 2);
    } finally {
      await close(deaf);
    }
  });
});
