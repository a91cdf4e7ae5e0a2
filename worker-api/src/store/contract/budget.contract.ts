import { InvalidInput, PlanNotFound } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, plan, runNext, task } from "./helpers.contract.js";

/** Changing a plan's budget after creation: the event, the claim gate, and a later crossing. */
export function describeBudgetContract(ctx: ContractContext): void {
  describe("setPlanBudget", () => {
    it("raising an exhausted budget lets claims resume, and a new crossing is reported again", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 100 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      await runNext(ctx.store, "p", "w1", 100);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();

      const { before, plan: after } = await ctx.store.setPlanBudget("p", 250);
      expect([before.budgetMicroUsd, after.budgetMicroUsd, after.spentMicroUsd]).toEqual([100, 250, 100]);
      expect((await ctx.store.getPlan("p"))?.budgetMicroUsd).toBe(250);
      const changed = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "plan.budget_changed");
      expect(changed.map((e) => [e.taskId, e.payload])).toEqual([
        [undefined, { plan_id: "p", budget_usd_before: "0.000100", budget_usd: "0.000250" }],
      ]);

      await runNext(ctx.store, "p", "w1", 150);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
      const crossings = (await ctx.store.listEvents("p")).filter(
        (e) => e.eventType === "plan.budget_exceeded",
      );
      expect(crossings.map((e) => e.payload.budget_usd)).toEqual(["0.000100", "0.000250"]);
    });

    it("sets and removes the cap: none is unlimited, and a budget at the spend still blocks", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await runNext(ctx.store, "p", "w1", 40);
      const capped = await ctx.store.setPlanBudget("p", 40);
      expect([capped.before.budgetMicroUsd, capped.plan.budgetMicroUsd]).toEqual([undefined, 40]);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
      const freed = await ctx.store.setPlanBudget("p", undefined);
      expect(freed.plan.budgetMicroUsd).toBeUndefined();
      expect((await claimAs(ctx.store, "p", "w1"))?.id).toBe("B");
      const payloads = (await ctx.store.listEvents("p"))
        .filter((e) => e.eventType === "plan.budget_changed")
        .map((e) => e.payload);
      expect(payloads).toEqual([
        { plan_id: "p", budget_usd_before: null, budget_usd: "0.000040" },
        { plan_id: "p", budget_usd_before: "0.000040", budget_usd: null },
      ]);
    });

    it("refuses an unknown plan and a budget out of range, changing nothing", async () => {
      expect(await caught(ctx.store.setPlanBudget("nope", 1))).toBeInstanceOf(PlanNotFound);
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 5 });
      expect(await caught(ctx.store.setPlanBudget("p", -1))).toBeInstanceOf(InvalidInput);
      expect(await caught(ctx.store.setPlanBudget("p", 0.5))).toBeInstanceOf(InvalidInput);
      expect((await ctx.store.getPlan("p"))?.budgetMicroUsd).toBe(5);
      expect(await ctx.store.listEvents("p")).toEqual([]);
    });
  });
}
