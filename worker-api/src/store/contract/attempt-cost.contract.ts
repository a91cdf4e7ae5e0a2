import { VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, plan, runNext, sleep, task } from "./helpers.contract.js";

/**
 * Every attempt's cost counts once: a report that meets a lost lease still adds it, a retried report
 * adds nothing again, with the worker's idempotency key or the one derived from the fence.
 */
export function describeAttemptCostContract(ctx: ContractContext): void {
  describe("attempt cost recorded once", () => {
    async function lostLease() {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.upsertWorker({ workerId: "slow", hostname: "h" });
      const lost = await ctx.store.claim({ planId: "p", workerId: "slow", leaseMs: 1, start: true });
      await sleep(20);
      expect((await ctx.store.releaseExpiredLeases()).map((t) => t.id)).toEqual(["A"]);
      return { planId: "p", taskId: "A", workerId: "slow", version: lost?.version ?? -1 };
    }

    for (const idempotencyKey of ["attempt-1", undefined]) {
      it(`a complete after the sweep: 409, and the cost counts once over retries (key ${idempotencyKey ?? "derived"})`, async () => {
        const fence = await lostLease();
        for (let i = 0; i < 3; i++) {
          const error = await caught(ctx.store.complete({ ...fence, costMicroUsd: 25_000, idempotencyKey }));
          expect(error).toBeInstanceOf(VersionConflict);
        }
        expect(
          await caught(ctx.store.fail({ ...fence, reason: "x", costMicroUsd: 25_000, idempotencyKey })),
        ).toBeInstanceOf(VersionConflict);
        expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(25_000);
        expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING", claimedBy: undefined });
      });
    }

    for (const idempotencyKey of ["attempt-1", undefined]) {
      it(`a release after the sweep: 409, and the cost counts once over retries (key ${idempotencyKey ?? "derived"})`, async () => {
        const fence = await lostLease();
        for (let i = 0; i < 3; i++) {
          const error = await caught(
            ctx.store.release({ ...fence, reason: "shutdown", costMicroUsd: 13_000, idempotencyKey }),
          );
          expect(error).toBeInstanceOf(VersionConflict);
        }
        expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(13_000);
        await ctx.store.upsertWorker({ workerId: "stranger", hostname: "h" });
        await caught(ctx.store.release({ ...fence, workerId: "stranger", reason: "x", costMicroUsd: 9 }));
        expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(13_000);
      });
    }

    it("a retried complete that had succeeded counts nothing again, with or without a key", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      for (const [taskId, idempotencyKey] of [
        ["A", "k"],
        ["B", undefined],
      ] as const) {
        const claimed = await claimAs(ctx.store, "p", "w1");
        expect(claimed?.id).toBe(taskId);
        const report = {
          planId: "p",
          taskId,
          workerId: "w1",
          version: claimed?.version ?? -1,
          costMicroUsd: 700,
          idempotencyKey,
        };
        await ctx.store.complete(report);
        expect(await caught(ctx.store.complete(report))).toBeInstanceOf(VersionConflict);
      }
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(1_400);
    });

    it("a fence its worker never held adds nothing", async () => {
      const fence = await lostLease();
      await ctx.store.upsertWorker({ workerId: "stranger", hostname: "h" });
      await caught(ctx.store.complete({ ...fence, workerId: "stranger", costMicroUsd: 9 }));
      await caught(ctx.store.complete({ ...fence, version: fence.version + 5, costMicroUsd: 9 }));
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(0);
    });
  });

  describe("budget reservation", () => {
    it("without a reserve or a finished attempt, one task of a budgeted plan is in flight", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000_000 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      const a = await claimAs(ctx.store, "p", "w1");
      expect(await claimAs(ctx.store, "p", "w2")).toBeUndefined();
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 300_000,
      });
      // R is now the largest recent attempt cost, 0.30: 0.30 spent + 0.30 + 0.30 fits 1.00, a third does not.
      expect((await claimAs(ctx.store, "p", "w1"))?.id).toBe("B");
      expect((await claimAs(ctx.store, "p", "w2"))?.id).toBe("C");
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(600_000);
    });

    it("refuses a claim when spent + reserved + R passes the budget; finish, release and sweep settle", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000, reserveMicroUsd: 400 });
      await ctx.store.importPlan(
        plan(
          "p",
          ["A", "B", "C", "D"].map((id) => task(id)),
        ),
      );
      const a = await claimAs(ctx.store, "p", "w1");
      const b = await claimAs(ctx.store, "p", "w2");
      expect(await claimAs(ctx.store, "p", "w3")).toBeUndefined();
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(800);
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 100,
      });
      expect(await ctx.store.getPlan("p")).toMatchObject({ spentMicroUsd: 100, reservedMicroUsd: 400 });
      await ctx.store.release({
        planId: "p",
        taskId: "B",
        workerId: "w2",
        version: b?.version ?? -1,
        reason: "x",
      });
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(0);
      await ctx.store.upsertWorker({ workerId: "w4", hostname: "h" });
      await ctx.store.claim({ planId: "p", workerId: "w4", leaseMs: 1 });
      await sleep(20);
      await ctx.store.releaseExpiredLeases();
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(0);
      // 100 spent + 400 + 400 fits 1000; a third reservation does not.
      expect(await claimAs(ctx.store, "p", "w1")).toBeDefined();
      expect(await claimAs(ctx.store, "p", "w2")).toBeDefined();
      expect(await claimAs(ctx.store, "p", "w3")).toBeUndefined();
    });

    it("N concurrent claimers overshoot the budget by at most one reservation's error", async () => {
      const ids = Array.from({ length: 40 }, (_, i) => `T${String(i).padStart(2, "0")}`);
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 10_000 });
      await ctx.store.importPlan(
        plan(
          "p",
          ids.map((id) => task(id)),
        ),
      );
      const cost = 1_000;
      await Promise.all(
        Array.from({ length: 12 }, async (_, n) => {
          for (;;) {
            const claimed = await claimAs(ctx.store, "p", `w${n}`);
            if (!claimed) return;
            await ctx.store.complete({
              planId: "p",
              taskId: claimed.id,
              workerId: `w${n}`,
              version: claimed.version,
              costMicroUsd: cost,
            });
          }
        }),
      );
      const after = await ctx.store.getPlan("p");
      // Every attempt costs what R reserves, so the error of a reservation is 0: no overshoot at all.
      expect(after?.spentMicroUsd).toBe(10_000);
      expect(after?.reservedMicroUsd).toBe(0);
    });

    it("takes the reserve from the plan file, and a re-import's value replaces it", async () => {
      await ctx.store.importPlan({ ...plan("p", [task("A")]), reserveMicroUsd: 300 });
      expect((await ctx.store.getPlan("p"))?.reserveMicroUsd).toBe(300);
      await ctx.store.importPlan({ ...plan("p", [task("A")]), reserveMicroUsd: 0 });
      expect((await ctx.store.getPlan("p"))?.reserveMicroUsd).toBe(0);
      const { plan: after } = await ctx.store.setPlanBudget("p", 1_000, { reserveMicroUsd: null });
      expect(after.reserveMicroUsd).toBeUndefined();
    });

    it("a plan without a budget reserves nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await runNext(ctx.store, "p", "w1", 500);
      await claimAs(ctx.store, "p", "w1");
      expect(await ctx.store.getPlan("p")).toMatchObject({ reservedMicroUsd: 0, spentMicroUsd: 500 });
    });
  });
}
