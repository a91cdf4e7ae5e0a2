import { InvalidInput, MAX_VERSION, PlanNotFound } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, drain, plan, runNext, task } from "./helpers.contract.js";

/** What a claim may take, in which order, and under which budget; concurrency on real connections. */
export function describeClaimContract(ctx: ContractContext): void {
  describe("claim", () => {
    it("takes only tasks whose dependencies are all DONE", async () => {
      await ctx.store.importPlan(
        plan("p", [task("A"), task("B", { deps: ["A"] }), task("C", { deps: ["A", "B"] })]),
      );
      expect(await drain(ctx.store, "p", "w1")).toEqual(["A"]);
      const a = await ctx.store.getTask("p", "A");
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 0,
      });
      expect(await drain(ctx.store, "p", "w1")).toEqual(["B"]);
    });

    it("walks a task imported at the highest plan-file version through claims, releases and a finish", async () => {
      await ctx.store.importPlan(plan("p", [{ ...task("A"), version: MAX_VERSION }]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      let held = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      for (let round = 0; round < 3; round++) {
        const fence = { planId: "p", taskId: "A", workerId: "w1", version: held?.version ?? -1 };
        await ctx.store.release({ ...fence, reason: "again" });
        held = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      }
      const fence = { planId: "p", taskId: "A", workerId: "w1", version: held?.version ?? -1 };
      const done = await ctx.store.complete({ ...fence, costMicroUsd: 0 });
      expect(done.task).toMatchObject({ status: "DONE", version: MAX_VERSION + 12 });
    });

    it("findClaimedPlans lists every plan in which the worker holds the task id, by plan id", async () => {
      for (const planId of ["q", "p", "r"]) await ctx.store.importPlan(plan(planId, [task("A")]));
      await claimAs(ctx.store, "q", "w1");
      await claimAs(ctx.store, "p", "w1");
      await claimAs(ctx.store, "r", "w2");
      expect(await ctx.store.findClaimedPlans("w1", "A")).toEqual(["p", "q"]);
      expect(await ctx.store.findClaimedPlans("w2", "A")).toEqual(["r"]);
      expect(await ctx.store.findClaimedPlans("w1", "B")).toEqual([]);
    });

    it("orders by priority (critical, high, medium, low), then by id in byte order", async () => {
      await ctx.store.importPlan(
        plan("p", [
          task("T-2", { priority: "low" }),
          task("T-10", { priority: "low" }),
          task("b", { priority: "medium" }),
          task("B", { priority: "medium" }),
          task("T-9", { priority: "critical" }),
          task("T-1", { priority: "high" }),
          task("T-3", { priority: "critical" }),
        ]),
      );
      expect(await drain(ctx.store, "p", "w1")).toEqual(["T-3", "T-9", "T-1", "B", "b", "T-10", "T-2"]);
    });

    it("sets CLAIMED, the owner, a lease of leaseMs on the database clock, and writes CLAIM", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const claimed = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 90_000 });
      expect(claimed).toMatchObject({ id: "A", status: "CLAIMED", claimedBy: "w1", version: 1, attempts: 0 });
      const claimedAt = claimed?.claimedAt?.getTime() ?? 0;
      expect((claimed?.leaseExpiresAt?.getTime() ?? 0) - claimedAt).toBe(90_000);
      const events = await ctx.store.listEvents("p", { afterId: 1 });
      expect(events.map((e) => [e.eventType, e.taskId, e.payload])).toEqual([
        ["CLAIM", "A", { worker_id: "w1", version: 1 }],
      ]);
    });

    it("with start, goes on to IN_PROGRESS in the same transaction, counting the attempt", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const claimed = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 90_000, start: true });
      expect(claimed).toMatchObject({
        id: "A",
        status: "IN_PROGRESS",
        claimedBy: "w1",
        version: 2,
        attempts: 1,
      });
      const events = await ctx.store.listEvents("p", { afterId: 1 });
      expect(events.map((e) => [e.eventType, e.payload])).toEqual([
        ["CLAIM", { worker_id: "w1", version: 1 }],
        ["START", { version: 2 }],
      ]);
      const done = await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: 2,
        costMicroUsd: 5,
      });
      expect(done.task).toMatchObject({ status: "DONE", attempts: 1 });
    });

    it("claimWithPlan answers the claimed task with its plan, or undefined when nothing is ready", async () => {
      const instructions = { before: ["read the PRD"], after: ["run the tests"] };
      await ctx.store.importPlan(plan("p", [task("A")], { name: "Shop", agentInstructions: instructions }));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const claimed = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      expect(claimed?.task).toMatchObject({ id: "A", status: "CLAIMED", claimedBy: "w1", version: 1 });
      expect(claimed?.plan).toMatchObject({ id: "p", name: "Shop", agentInstructions: instructions });
      expect(await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000 })).toBeUndefined();
    });

    it("returns undefined when nothing is PENDING and ready", async () => {
      await ctx.store.importPlan(plan("p", [task("A", { status: "DONE" }), task("B", { status: "FAILED" })]));
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("refuses an unknown plan, an unregistered worker and a bad lease", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      expect(await caught(ctx.store.claim({ planId: "nope", workerId: "w1", leaseMs: 1000 }))).toBeInstanceOf(
        PlanNotFound,
      );
      const unregistered = await caught(ctx.store.claim({ planId: "p", workerId: "ghost", leaseMs: 1000 }));
      expect(unregistered).toBeInstanceOf(InvalidInput);
      expect((unregistered as InvalidInput).field).toBe("workerId");
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const badLease = await caught(ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 0 }));
      expect((badLease as InvalidInput).field).toBe("leaseMs");
      // The failed statements rolled back: the task is still there to claim.
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "A" });
    });
  });

  describe("budget", () => {
    it("blocks every claim with a budget of 0", async () => {
      await ctx.store.createPlan({ id: "p", name: "zero", budgetMicroUsd: 0 });
      await ctx.store.importPlan(plan("p", [task("A")]));
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("claims while spend is strictly under the budget and stops when spend equals it", async () => {
      await ctx.store.createPlan({
        id: "p",
        name: "budgeted",
        budgetMicroUsd: 1_000_000,
        reserveMicroUsd: 0,
      });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      await runNext(ctx.store, "p", "w1", 999_999);
      const b = await runNext(ctx.store, "p", "w1", 1);
      expect(b.id).toBe("B");
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(1_000_000);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("never limits a plan without a budget", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await runNext(ctx.store, "p", "w1", 50_000_000_000);
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "B" });
    });
  });

  describe("concurrency", () => {
    it("20 concurrent claimers never take the same task, and every task is claimed once", async () => {
      const ids = Array.from({ length: 60 }, (_, i) => `T-${String(i).padStart(3, "0")}`);
      await ctx.store.importPlan(
        plan(
          "p",
          ids.map((id) => task(id)),
        ),
      );
      const workers = Array.from({ length: 20 }, (_, i) => `w${i}`);
      for (const workerId of workers) await ctx.store.upsertWorker({ workerId, hostname: "h" });
      const claimedBy = await Promise.all(
        workers.map(async (workerId) => {
          const mine: string[] = [];
          for (;;) {
            const claimed = await ctx.store.claim({ planId: "p", workerId, leaseMs: 60_000 });
            if (!claimed) return mine;
            mine.push(claimed.id);
          }
        }),
      );
      const all = claimedBy.flat();
      expect(all.length).toBe(ids.length);
      expect(new Set(all).size).toBe(ids.length);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.every((t) => t.status === "CLAIMED" && t.version === 1)).toBe(true);
      const owners = new Map(claimedBy.flatMap((mine, i) => mine.map((id) => [id, `w${i}`] as const)));
      expect(tasks.every((t) => t.claimedBy === owners.get(t.id))).toBe(true);
      const claims = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "CLAIM");
      expect(claims.length).toBe(ids.length);
    });

    it("20 concurrent completes of parents sharing dependents all succeed and ready each dependent once", async () => {
      const parents = Array.from({ length: 20 }, (_, i) => `P-${String(i).padStart(2, "0")}`);
      // Every child waits on every parent, listed in a different order per child, so concurrent
      // completes decrement the same rows and would deadlock if they locked them in different orders.
      const children = Array.from({ length: 8 }, (_, i) =>
        task(`C-${i}`, { deps: i % 2 === 0 ? [...parents] : [...parents].reverse() }),
      );
      await ctx.store.importPlan(
        plan("p", [...parents.map((id) => task(id, { priority: "critical" })), ...children]),
      );
      const held = [];
      for (const id of parents)
        held.push({ workerId: `w-${id}`, task: await claimAs(ctx.store, "p", `w-${id}`) });
      expect(held.map((h) => h.task?.id)).toEqual(parents);
      const results = await Promise.allSettled(
        held.map(({ workerId, task: t }) =>
          ctx.store.complete({
            planId: "p",
            taskId: t?.id ?? "",
            workerId,
            version: t?.version ?? -1,
            costMicroUsd: 0,
          }),
        ),
      );
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      expect(await drain(ctx.store, "p", "w-child")).toEqual(children.map((c) => c.id));
    });
  });
}
