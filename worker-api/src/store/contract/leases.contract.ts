import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, eventTypes, plan, sleep, task } from "./helpers.contract.js";

/** Heartbeats renew leases; sweeps release expired leases and the tasks of gone workers. */
export function describeLeaseContract(ctx: ContractContext): void {
  describe("leases", () => {
    it("a heartbeat renews the leases of the worker's CLAIMED and IN_PROGRESS tasks only", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      await ctx.store.upsertWorker({ workerId: "w2", hostname: "h" });
      const a = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 1 });
      await ctx.store.start({ planId: "p", taskId: "A", workerId: "w1", version: a?.version ?? -1 });
      await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 1 });
      const c = await ctx.store.claim({ planId: "p", workerId: "w2", leaseMs: 1 });

      expect(await ctx.store.heartbeat("w1", 600_000)).toEqual({
        ok: true,
        renewed: [
          { planId: "p", taskId: "A" },
          { planId: "p", taskId: "B" },
        ],
        released: [],
      });
      await sleep(30);
      const released = await ctx.store.releaseExpiredLeases();
      expect(released.map((t) => t.id)).toEqual(["C"]);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.map((t) => [t.id, t.status, t.claimedBy])).toEqual([
        ["A", "IN_PROGRESS", "w1"],
        ["B", "CLAIMED", "w1"],
        ["C", "PENDING", undefined],
      ]);
      // Renewal is not a transition: versions stay, so the worker's fences still hold.
      expect(tasks[0]?.version).toBe(2);
      expect(tasks[2]?.version).toBe((c?.version ?? 0) + 1);
    });

    it("a heartbeat that names the running tasks renews only those leases", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.importPlan(plan("q", [task("A")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      for (const planId of ["p", "p", "q"]) await ctx.store.claim({ planId, workerId: "w1", leaseMs: 1 });
      const running = [{ planId: "q", taskId: "A" }];
      expect(await ctx.store.heartbeat("w1", 600_000, running)).toEqual({
        ok: true,
        renewed: running,
        released: [],
      });
      await sleep(30);
      const released = await ctx.store.releaseExpiredLeases();
      expect(released.map((t) => `${t.planId}/${t.id}`).sort()).toEqual(["p/A", "p/B"]);
    });

    it("a heartbeat from an unknown worker is not ok and renews nothing", async () => {
      expect(await ctx.store.heartbeat("ghost", 1000)).toEqual({ ok: false, renewed: [], released: [] });
    });

    it("a heartbeat reports as renewed only the named tasks the worker holds", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      await claimAs(ctx.store, "p", "w1");
      await claimAs(ctx.store, "p", "w2");
      const named = [
        { planId: "p", taskId: "A" },
        { planId: "p", taskId: "B" },
        { planId: "p", taskId: "C" },
        { planId: "nope", taskId: "A" },
      ];
      const beat = await ctx.store.heartbeat("w1", 600_000, named);
      expect(beat).toEqual({ ok: true, renewed: [{ planId: "p", taskId: "A" }], released: [] });
      expect((await ctx.store.getTask("p", "B"))?.claimedBy).toBe("w2");
    });

    it("the lease sweep releases expired leases with RELEASE visibility_timeout naming the worker", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const a = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 1 });
      await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 600_000 });
      await sleep(30);
      const released = await ctx.store.releaseExpiredLeases();
      expect(released).toHaveLength(1);
      expect(released[0]).toMatchObject({
        id: "A",
        status: "PENDING",
        claimedBy: undefined,
        version: (a?.version ?? 0) + 1,
      });
      const last = (await ctx.store.listEvents("p")).at(-1);
      expect([last?.eventType, last?.taskId, last?.payload]).toEqual([
        "RELEASE",
        "A",
        { reason: "visibility_timeout", version: 2, worker_id: "w1" },
      ]);
      expect(await ctx.store.releaseExpiredLeases()).toEqual([]);
    });

    it("releaseWorkerTasks returns every task the worker holds, in every plan, with the given reason", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.importPlan(plan("q", [task("A")]));
      await claimAs(ctx.store, "p", "gone");
      await claimAs(ctx.store, "q", "gone");
      await claimAs(ctx.store, "p", "alive");
      const released = await ctx.store.releaseWorkerTasks("gone", "worker_offline");
      expect(released.map((t) => [t.planId, t.id, t.status])).toEqual([
        ["p", "A", "PENDING"],
        ["q", "A", "PENDING"],
      ]);
      expect((await ctx.store.getTask("p", "B"))?.claimedBy).toBe("alive");
      const last = (await ctx.store.listEvents("q")).at(-1);
      expect(last?.payload).toEqual({ reason: "worker_offline", version: 2, worker_id: "gone" });
    });

    it("releaseWorkerTasks with silentForMs releases only a worker silent that long by the database clock", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "same-host");
      await ctx.store.heartbeat("same-host", 60_000);
      const kept = await ctx.store.releaseWorkerTasks("same-host", "worker_offline", { silentForMs: 60_000 });
      expect(kept).toEqual([]);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({
        status: "CLAIMED",
        claimedBy: "same-host",
        version: claimed?.version,
      });
      expect(await eventTypes(ctx.store, "p", "A")).toEqual(["task.created", "CLAIM"]);
      // The last heartbeat lies before this transaction's now(), so a zero threshold finds it silent.
      const released = await ctx.store.releaseWorkerTasks("same-host", "worker_offline", { silentForMs: 0 });
      expect(released.map((t) => [t.id, t.status])).toEqual([["A", "PENDING"]]);
      const bad = await caught(ctx.store.releaseWorkerTasks("same-host", "x", { silentForMs: -1 }));
      expect(bad).toMatchObject({ code: "invalid_input", field: "silentForMs" });
    });

    it("the offline sweep marks silent workers offline and releases their tasks", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await claimAs(ctx.store, "p", "silent");
      // The gap is wide so that a slow, loaded machine cannot push "fresh" past the threshold too.
      await sleep(1500);
      await claimAs(ctx.store, "p", "fresh");
      const swept = await ctx.store.releaseOfflineWorkers(1000);
      expect(swept.workers).toEqual(["silent"]);
      expect(swept.released.map((t) => t.id)).toEqual(["A"]);
      const workers = await ctx.store.listWorkers();
      expect(workers.map((w) => [w.workerId, w.status])).toEqual([
        ["fresh", "online"],
        ["silent", "offline"],
      ]);
      expect(await ctx.store.heartbeat("silent", 1000)).toEqual({ ok: true, renewed: [], released: [] });
      expect((await ctx.store.listWorkers()).every((w) => w.status === "online")).toBe(true);
    });

    it("the offline sweep counts a claim as a sign of life: a task claimed while offline is kept one timeout", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await claimAs(ctx.store, "p", "lagging");
      await sleep(1500);
      expect((await ctx.store.releaseOfflineWorkers(1000)).released.map((t) => t.id)).toEqual(["A"]);
      // Still offline (no heartbeat), it claims again: the sweep right after must not take the task.
      const claimed = await ctx.store.claim({ planId: "p", workerId: "lagging", leaseMs: 60_000 });
      expect(claimed?.id).toBe("A");
      expect((await ctx.store.releaseOfflineWorkers(1000)).released).toEqual([]);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "CLAIMED", claimedBy: "lagging" });
      await sleep(1500);
      expect((await ctx.store.releaseOfflineWorkers(1000)).released.map((t) => t.id)).toEqual(["A"]);
    });
  });

  describe("workers", () => {
    it("registers, refreshes, keeps the token hash unless given, and refuses a hash another worker holds", async () => {
      const first = await ctx.store.upsertWorker({ workerId: "w1", hostname: "a", tokenHash: "h1" });
      expect(first).toMatchObject({ workerId: "w1", hostname: "a", status: "online" });
      const again = await ctx.store.upsertWorker({ workerId: "w1", hostname: "b" });
      expect(again.hostname).toBe("b");
      expect(again.registeredAt).toEqual(first.registeredAt);
      const clash = await ctx.store
        .upsertWorker({ workerId: "w2", hostname: "c", tokenHash: "h1" })
        .catch((e) => e);
      expect(clash).toMatchObject({ code: "invalid_input", field: "tokenHash" });
      await ctx.store.upsertWorker({ workerId: "w2", hostname: "c" });
      await ctx.store.upsertWorker({ workerId: "w3", hostname: "c" });
      expect((await ctx.store.listWorkers()).map((w) => w.workerId)).toEqual(["w1", "w2", "w3"]);
    });
  });
}
