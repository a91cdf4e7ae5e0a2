import { parsePlanObject } from "@whilly/core";
import { createTokenAuth, openInMemoryStore, type Store, startNodeServer } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerSettings } from "../../../worker-api/src/node/settings.js";
import { remoteDashboardSource, storeSource } from "./sources.js";

// The dashboard's two sources read the same plan alike: the store itself, and a control plane's read
// API (`--connect`), which now carries claim times, spend, progress, workers and their pause.

const ADMIN = "admin-s3cret-for-dashboard-sources";
let store: Store;
let server: Awaited<ReturnType<typeof startNodeServer>>;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  const settings = parseServerSettings({
    WHILLY_WORKER_BOOTSTRAP_TOKEN: "bootstrap-s3cret-for-dashboard-sources",
    WHILLY_ADMIN_TOKEN: ADMIN,
  });
  server = await startNodeServer({ store, settings, auth: createTokenAuth(settings.auth), port: 0 });
});
afterAll(async () => {
  await server?.close(1000);
  await store?.close();
});

describe("the dashboard's sources", () => {
  it("give the same snapshot of a running, a finished and a pending task, the workers and the pause", async () => {
    const tasks = ["A", "B", "C"].map((id) => ({ id, status: "pending", priority: "high", description: id }));
    await store.importPlan(parsePlanObject({ project: "src", tasks }, "test"), { budgetMicroUsd: 1_000_000 });
    await store.upsertWorker({ workerId: "w-1", hostname: "h" });
    const a = await store.claim({ planId: "src", workerId: "w-1", leaseMs: 60_000, start: true });
    await store.complete({
      planId: "src",
      taskId: "A",
      workerId: "w-1",
      version: a?.version ?? -1,
      costMicroUsd: 250_000,
    });
    await store.claim({ planId: "src", workerId: "w-1", leaseMs: 60_000, start: true });
    const progress = { phase: "verify", last_tool: "Bash", turns: 9 };
    await store.heartbeat("w-1", 60_000, [{ planId: "src", taskId: "B", progress }]);
    await store.pauseWorkers();

    const local = await storeSource(store, 1000).snapshot("src");
    const remote = await remoteDashboardSource(
      { url: server.url, token: ADMIN, timeoutMs: 5000 },
      1000,
    ).snapshot("src");
    expect(remote).toEqual(local);
    expect(remote.workersPaused).toBe(true);
    expect(remote.workers).toEqual([expect.objectContaining({ id: "w-1", online: true })]);
    expect(remote.tasks.map((t) => [t.id, t.status, t.spentMicroUsd, t.progress ?? null])).toEqual([
      ["A", "DONE", 250_000, null],
      ["B", "IN_PROGRESS", 0, progress],
      ["C", "PENDING", 0, null],
    ]);
    expect(Date.parse(remote.tasks[1]?.claimedAt ?? "")).not.toBeNaN();
  });
});
