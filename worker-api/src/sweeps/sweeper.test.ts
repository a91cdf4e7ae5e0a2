import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { createApp } from "../app/app.js";
import { inProcessAuth } from "../auth/in-process.js";
import { startCoordinator } from "../coordinator/coordinator.js";
import { createEventBuffer } from "../events-buffer/event-buffer.js";
import type { Logger } from "../ports/index.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import { openPostgresStore } from "../store/open/postgres.js";
import type { Store } from "../store/store.js";
import { startSweeper } from "./sweeper.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describeSweeps(name: string, open: () => Promise<Store>) {
  describe(`sweeps on ${name}`, () => {
    let store: Store;
    let seq = 0;
    const newPlan = async (tasks = [task("A")]) => {
      seq += 1;
      const id = `sw-${seq}`;
      await store.importPlan(plan(id, tasks));
      return id;
    };
    const releases = async (planId: string) =>
      (await store.listEvents(planId))
        .filter((e) => e.eventType === "RELEASE")
        .map((e) => ({ task: e.taskId, reason: e.payload.reason, worker: e.payload.worker_id }));

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => store?.close());

    it("returns an expired lease to PENDING with RELEASE visibility_timeout", async () => {
      const planId = await newPlan();
      await store.upsertWorker({ workerId: "lease-w", hostname: "h" });
      await store.claim({ planId, workerId: "lease-w", leaseMs: 100 });
      const sweeper = startSweeper({
        withStore: (use) => use(store),
        intervalMs: 60_000,
        firstSweepDelayMs: 60_000,
        heartbeatTimeoutMs: 60_000,
      });
      try {
        await sleep(150);
        const result = await sweeper.sweepNow();
        expect(result.expired.map((t) => [t.planId, t.id])).toEqual([[planId, "A"]]);
        expect(await store.getTask(planId, "A")).toMatchObject({ status: "PENDING", claimedBy: undefined });
        expect(await releases(planId)).toEqual([
          { task: "A", reason: "visibility_timeout", worker: "lease-w" },
        ]);
      } finally {
        await sweeper.stop();
      }
    });

    it("keeps a task whose worker heartbeats past its lease, and releases it once the heartbeats stop", async () => {
      const planId = await newPlan();
      await store.upsertWorker({ workerId: "beat-w", hostname: "h" });
      const app = createApp({
        withStore: (use) => use(store),
        auth: inProcessAuth,
        settings: { leaseMs: 600, claimWaitMs: 0, claimRecheckMs: 1000 },
      });
      const post = (path: string, body: object) =>
        app.request(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const claimed = await post("/tasks/claim", { worker_id: "beat-w", plan_id: planId, start: true });
      expect(claimed.status).toBe(200);
      const sweeper = startSweeper({
        withStore: (use) => use(store),
        intervalMs: 30,
        heartbeatTimeoutMs: 60_000,
      });
      try {
        // Two lease lengths of running, heartbeating every quarter of a lease.
        for (let i = 0; i < 8; i++) {
          await sleep(150);
          expect((await post("/workers/beat-w/heartbeat", { worker_id: "beat-w" })).status).toBe(200);
        }
        await sweeper.sweepNow();
        expect(await store.getTask(planId, "A")).toMatchObject({
          status: "IN_PROGRESS",
          claimedBy: "beat-w",
        });
        expect(await releases(planId)).toEqual([]);
        await vi.waitFor(async () => expect((await store.getTask(planId, "A"))?.status).toBe("PENDING"), {
          timeout: 5000,
        });
        expect(await releases(planId)).toEqual([
          { task: "A", reason: "visibility_timeout", worker: "beat-w" },
        ]);
      } finally {
        await sweeper.stop();
      }
    });

    it("marks a silent worker offline, releases its tasks with worker_offline and logs worker.offline", async () => {
      const planId = await newPlan([task("A"), task("B")]);
      await store.upsertWorker({ workerId: "silent-w", hostname: "h" });
      await store.upsertWorker({ workerId: "alive-w", hostname: "h" });
      await store.claim({ planId, workerId: "silent-w", leaseMs: 60_000 });
      await store.claim({ planId, workerId: "alive-w", leaseMs: 60_000 });
      const events = createEventBuffer({ write: (batch) => store.appendEvents(batch) });
      const sweeper = startSweeper({
        withStore: (use) => use(store),
        intervalMs: 60_000,
        firstSweepDelayMs: 60_000,
        heartbeatTimeoutMs: 400,
        events,
      });
      try {
        await sleep(450);
        await store.heartbeat("alive-w", 60_000);
        const result = await sweeper.sweepNow();
        expect(result.offlineWorkers).toContain("silent-w");
        expect(result.offlineWorkers).not.toContain("alive-w");
        expect(result.offlineReleased.map((t) => t.id)).toEqual(["A"]);
        expect(await store.getTask(planId, "A")).toMatchObject({ status: "PENDING" });
        expect(await store.getTask(planId, "B")).toMatchObject({ status: "CLAIMED", claimedBy: "alive-w" });
        expect(await releases(planId)).toEqual([{ task: "A", reason: "worker_offline", worker: "silent-w" }]);
        const worker = (await store.listWorkers()).find((w) => w.workerId === "silent-w");
        expect(worker?.status).toBe("offline");
        expect(await events.drain()).toBe(0);
        const summary = (await store.listEvents(planId)).filter((e) => e.eventType === "worker.offline");
        expect(summary.map((e) => e.payload)).toEqual([{ workers: result.offlineWorkers, released: ["A"] }]);
      } finally {
        await sweeper.stop();
      }
    });

    it("wakes a parked claim with the task it released, through a coordinator that hears no store signal", async () => {
      const planId = await newPlan();
      await store.upsertWorker({ workerId: "gone-w", hostname: "h" });
      await store.upsertWorker({ workerId: "next-w", hostname: "h" });
      await store.claim({ planId, workerId: "gone-w", leaseMs: 100 });
      const coordinator = await startCoordinator({ recheckMs: 600_000 });
      const app = createApp({
        withStore: (use) => use(store),
        auth: inProcessAuth,
        coordinator,
        settings: { leaseMs: 60_000, claimWaitMs: 10_000, claimRecheckMs: 600_000 },
      });
      const sweeper = startSweeper({
        withStore: (use) => use(store),
        intervalMs: 60_000,
        firstSweepDelayMs: 60_000,
        heartbeatTimeoutMs: 60_000,
        coordinator,
      });
      try {
        const pending = app.request("/tasks/claim", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ worker_id: "next-w", plan_id: planId }),
        });
        await vi.waitFor(() => expect(coordinator.waiting).toBe(1));
        await sleep(150);
        const swept = Date.now();
        await sweeper.sweepNow();
        const reply = await pending;
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as { task: { claimed_by: string } }).task.claimed_by).toBe("next-w");
        // Woken by the sweep, not by the claim's wait (10 s) running out; loose, for a loaded machine.
        expect(Date.now() - swept).toBeLessThan(5000);
      } finally {
        await sweeper.stop();
        await coordinator.close();
      }
    });
  });
}

describeSweeps("PGlite", () => openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR }));

describe.skipIf(!postgresAvailable())("Postgres", () => {
  let database: TestDatabase;
  afterAll(async () => database?.drop());
  describeSweeps("Postgres", async () => {
    database = await createTestDatabase();
    return openPostgresStore(database.url);
  });
});

describe("the sweep timer", () => {
  it("logs a failed sweep and sweeps again on time", async () => {
    const lines: [string, string][] = [];
    const log: Logger = (level, event) => lines.push([level, event]);
    let calls = 0;
    const sweeper = startSweeper({
      withStore: async () => {
        calls += 1;
        throw new Error("database unreachable");
      },
      intervalMs: 20,
      heartbeatTimeoutMs: 60_000,
      log,
    });
    try {
      await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(3));
      expect(lines.filter(([, event]) => event === "sweep.failed").length).toBeGreaterThanOrEqual(2);
    } finally {
      await sweeper.stop();
    }
    const after = calls;
    await sleep(60);
    expect(calls).toBe(after);
  });
});
