import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../../test/support/db.js";
import { claimAs, plan, task } from "../contract/helpers.contract.js";
import { openInMemoryStore } from "../open/embedded.js";
import { openPostgresStore } from "../open/postgres.js";
import type { Store } from "../store.js";
import type { ReadyListener } from "./listener.js";

/**
 * The store's ready signals, on both drivers: every write that makes a task ready announces its plan on
 * commit, and writes that make nothing ready (or roll back) stay silent.
 */
function describeReadySignals(
  name: string,
  open: () => Promise<{ store: Store; done: () => Promise<void> }>,
) {
  describe(`ready signals on ${name}`, () => {
    let store: Store;
    let done: () => Promise<void>;
    let listener: ReadyListener;
    const heard: (string | undefined)[] = [];
    let fences = 0;

    beforeAll(async () => {
      ({ store, done } = await open());
      const listen = store.listenForReady;
      if (!listen) throw new Error(`${name} store cannot listen`);
      listener = await listen((planId) => heard.push(planId));
      await vi.waitFor(() => expect(heard).toContain(undefined));
    });
    afterAll(async () => {
      await listener?.close();
      await done?.();
    });

    /**
     * Runs `write`, then a write that surely signals (importing a fresh plan), and returns the plans
     * signalled in between: signals arrive in commit order, so the fence proves nothing else is coming.
     */
    async function signalsOf(write: () => Promise<unknown>): Promise<(string | undefined)[]> {
      const from = heard.length;
      await write().catch(() => {});
      const fence = `fence-${++fences}`;
      await store.importPlan(plan(fence, [task("F")]));
      await vi.waitFor(() => expect(heard.slice(from)).toContain(fence));
      return heard.slice(from, heard.indexOf(fence, from));
    }

    it("signals an import that brings a ready task, and nothing for a repeat import", async () => {
      const spec = plan("imp", [task("A"), task("B", { deps: ["A"] })]);
      expect(await signalsOf(() => store.importPlan(spec))).toEqual(["imp"]);
      expect(await signalsOf(() => store.importPlan(spec))).toEqual([]);
      const blockedOnly = plan("imp", [task("A"), task("B", { deps: ["A"] }), task("C", { deps: ["A"] })]);
      expect(await signalsOf(() => store.importPlan(blockedOnly))).toEqual([]);
    });

    it("signals a completion that readies a dependent, not one that readies nothing", async () => {
      await store.importPlan(plan("dag", [task("A"), task("B", { deps: ["A"] }), task("C")]));
      const a = await claimAs(store, "dag", "w1");
      const c = await claimAs(store, "dag", "w1");
      expect([a?.id, c?.id]).toEqual(["A", "C"]);
      const fence = (id: string, version: number) => ({ planId: "dag", taskId: id, workerId: "w1", version });
      expect(
        await signalsOf(() => store.complete({ ...fence("C", c?.version ?? 0), costMicroUsd: 0 })),
      ).toEqual([]);
      // A stale version rolls the transaction back: no signal.
      expect(await signalsOf(() => store.complete({ ...fence("A", 99), costMicroUsd: 0 }))).toEqual([]);
      expect(
        await signalsOf(() => store.complete({ ...fence("A", a?.version ?? 0), costMicroUsd: 0 })),
      ).toEqual(["dag"]);
    });

    it("signals releases, expired leases and resets, never a claim or a failure", async () => {
      await store.importPlan(plan("rel", [task("A"), task("B"), task("C")]));
      await store.upsertWorker({ workerId: "w2", hostname: "h" });
      const a = await store.claim({ planId: "rel", workerId: "w2", leaseMs: 60_000 });
      expect(await signalsOf(() => store.claim({ planId: "rel", workerId: "w2", leaseMs: 1 }))).toEqual([]);
      expect((await store.getTask("rel", "B"))?.status).toBe("CLAIMED");
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await signalsOf(() => store.releaseExpiredLeases())).toEqual(["rel"]);
      expect((await store.getTask("rel", "B"))?.status).toBe("PENDING");

      const fence = { planId: "rel", taskId: "A", workerId: "w2", version: a?.version ?? 0 };
      expect(await signalsOf(() => store.release({ ...fence, reason: "shutdown" }))).toEqual(["rel"]);
      const again = await store.claim({ planId: "rel", workerId: "w2", leaseMs: 60_000 });
      const failing = {
        planId: "rel",
        taskId: again?.id ?? "",
        workerId: "w2",
        version: again?.version ?? 0,
      };
      expect(await signalsOf(() => store.fail({ ...failing, reason: "broken", costMicroUsd: 0 }))).toEqual(
        [],
      );
      expect(await signalsOf(() => store.resetPlan("rel", "keep_tasks"))).toEqual(["rel"]);
    });

    it("signals a budget change that leaves room to claim, not one that leaves the plan exhausted", async () => {
      await store.createPlan({ id: "money", name: "m", budgetMicroUsd: 0 });
      await signalsOf(() => store.importPlan(plan("money", [task("A")])));
      expect(await signalsOf(() => store.setPlanBudget("money", 0))).toEqual([]);
      expect(await signalsOf(() => store.setPlanBudget("money", 10))).toEqual(["money"]);
      expect(await signalsOf(() => store.setPlanBudget("money", undefined))).toEqual(["money"]);
    });

    it("announces a plan id too long for a NOTIFY payload as any plan", async () => {
      const long = `p-${"é".repeat(4500)}`;
      expect(await signalsOf(() => store.importPlan(plan(long, [task("A")])))).toEqual([undefined]);
      expect(await store.getPlan(long)).toBeDefined();
    });
  });
}

describeReadySignals("PGlite", async () => {
  const store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  return { store, done: () => store.close() };
});

describe.skipIf(!postgresAvailable())("Postgres", () => {
  let database: TestDatabase;
  afterAll(async () => database?.drop());

  describeReadySignals("Postgres", async () => {
    database = await createTestDatabase();
    const store = await openPostgresStore(database.url);
    return { store, done: () => store.close() };
  });

  it("reconnects a lost listening connection and says signals may have been missed", async () => {
    const store = await openPostgresStore(database.url);
    const heard: (string | undefined)[] = [];
    const errors: unknown[] = [];
    const listener = await store.listenForReady?.((planId) => heard.push(planId), {
      onError: (error) => errors.push(error),
    });
    try {
      expect(heard).toEqual([undefined]);
      const admin = await openPostgresStore(database.url);
      try {
        // Cut the listening backend as a server restart or a network fault would.
        await terminateListeners(database.url);
        await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
        await vi.waitFor(() => expect(heard).toEqual([undefined, undefined]), { timeout: 5000 });
        await admin.importPlan(plan("after-reconnect", [task("A")]));
        await vi.waitFor(() => expect(heard).toContain("after-reconnect"));
      } finally {
        await admin.close();
      }
    } finally {
      await listener?.close();
      await store.close();
    }
  });
});

async function terminateListeners(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ended = await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
    );
    if (ended.rowCount === 0) throw new Error("no listening backend found");
  } finally {
    await client.end();
  }
}
