import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import { type Coordinator, startCoordinator } from "../coordinator/coordinator.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { createApp } from "./app.js";

/** The wait bound: a claim answered well inside it was woken, not timed out. */
const BOUND_MS = 10_000;
/** A woken claim answers before half the bound: a loaded machine may take a second or more, a timeout takes the whole bound. */
const WOKEN_WITHIN_MS = BOUND_MS / 2;

let store: Store;
let coordinator: Coordinator;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  for (const workerId of ["plain", "gpu", "other"]) await store.upsertWorker({ workerId, hostname: "h" });
  // Rechecks far beyond the bound: every wake-up below comes from a signal or a hand-on.
  coordinator = await startCoordinator({ store, recheckMs: 600_000 });
});
afterAll(async () => {
  await coordinator?.close();
  await store?.close();
});

const app = () =>
  createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    coordinator,
    settings: { leaseMs: 60_000, claimWaitMs: BOUND_MS, claimRecheckMs: 600_000 },
  });

async function claim(workerId: string, planId: string, tags: string[], signal?: AbortSignal) {
  const response = await app().request("/tasks/claim", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      worker_id: workerId,
      plan_id: planId,
      capabilities: { agents: ["claude"], tags },
    }),
    ...(signal ? { signal } : {}),
  });
  const body = response.status === 200 ? ((await response.json()) as { task: { id: string } }) : undefined;
  return { status: response.status, id: body?.task.id, at: Date.now() };
}

describe("the claim long poll with routing", () => {
  it("a claim woken for a task it cannot run hands the wake-up on to one that can", async () => {
    // The oldest parked claim is woken first; it cannot run the gpu task.
    const leave = new AbortController();
    const plain = claim("plain", "r1", [], leave.signal).catch(() => undefined);
    await vi.waitFor(() => expect(coordinator.waiting).toBe(1));
    const gpu = claim("gpu", "r1", ["gpu"]);
    await vi.waitFor(() => expect(coordinator.waiting).toBe(2));
    const imported = Date.now();
    await store.importPlan(
      plan(
        "r1",
        [task("G", { keyFiles: [] })].map((t) => ({ ...t, requiredTags: ["gpu"] })),
      ),
    );
    const reply = await gpu;
    expect(reply).toMatchObject({ status: 200, id: "G" });
    expect(reply.at - imported).toBeLessThan(WOKEN_WITHIN_MS);
    // The plain claim parked again, and handed nothing on twice: it is the only one parked now.
    await vi.waitFor(() => expect(coordinator.waiting).toBe(1));
    leave.abort();
    await plain;
    await vi.waitFor(() => expect(coordinator.waiting).toBe(0));
  });
});
