import { InvalidInput, MAX_MICRO_USD } from "@whilly/core";
import { describe, expect, it } from "vitest";
import {
  type ContractContext,
  caught,
  claimAs,
  ONE_ATTEMPT,
  plan,
  runNext,
  task,
} from "./helpers.contract.js";

/** Spend is exact, counts failed attempts, and crosses the budget exactly once. */
export function describeMoneyContract(ctx: ContractContext): void {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `T-${String(i).padStart(3, "0")}`);

  describe("spend", () => {
    it("sums 100 small increments exactly, on the plan and on each task", async () => {
      await ctx.store.importPlan(
        plan(
          "p",
          ids(100).map((id) => task(id)),
        ),
      );
      let expected = 0;
      for (let i = 0; i < 100; i++) {
        // 0.1 USD plus a changing micro-dollar tail: a float sum of these would drift.
        const cost = 100_000 + (i % 7);
        expected += cost;
        const done = await runNext(ctx.store, "p", "w1", cost);
        expect(done.spentMicroUsd).toBe(cost);
      }
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(expected);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.reduce((sum, t) => sum + t.spentMicroUsd, 0)).toBe(expected);
    });

    it("adds the cost of failed and released attempts to the same task", async () => {
      await ctx.store.importPlan(plan("p", [task("A")], ONE_ATTEMPT));
      const first = await claimAs(ctx.store, "p", "w1");
      await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: first?.version ?? -1,
        reason: "shutdown",
        costMicroUsd: 1,
      });
      const second = await claimAs(ctx.store, "p", "w1");
      const failed = await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: second?.version ?? -1,
        reason: "no_marker",
        costMicroUsd: 59_272,
      });
      expect(failed.task.spentMicroUsd).toBe(59_273);
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(59_273);
      const events = await ctx.store.listEvents("p");
      expect(events.find((e) => e.eventType === "FAIL")?.payload).toEqual({
        version: failed.task.version,
        worker_id: "w1",
        cost_usd: "0.059272",
        reason: "no_marker",
        attempt: 1,
        retry: false,
        max_attempts: 1,
        not_before: null,
      });
    });

    it("refuses a negative or fractional cost before writing anything", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      for (const costMicroUsd of [-1, 0.5, Number.NaN]) {
        const error = await caught(
          ctx.store.complete({
            planId: "p",
            taskId: "A",
            workerId: "w1",
            version: claimed?.version ?? -1,
            costMicroUsd,
          }),
        );
        expect(error).toBeInstanceOf(InvalidInput);
        expect((error as InvalidInput).field).toBe("costMicroUsd");
      }
      expect((await ctx.store.getTask("p", "A"))?.status).toBe("CLAIMED");
    });
  });

  describe("spend past NUMERIC(14,6)", () => {
    it("saturates the plan's and the task's spend at the maximum instead of failing the transition", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")], ONE_ATTEMPT));
      await runNext(ctx.store, "p", "w1", MAX_MICRO_USD - 10);
      const b = await runNext(ctx.store, "p", "w1", 100);
      expect(b).toMatchObject({ status: "DONE", spentMicroUsd: 100 });
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(MAX_MICRO_USD);

      const first = await claimAs(ctx.store, "p", "w1");
      const fence = { planId: "p", taskId: "C", workerId: "w1" };
      const max = MAX_MICRO_USD;
      await ctx.store.release({ ...fence, version: first?.version ?? -1, reason: "x", costMicroUsd: max });
      const second = await claimAs(ctx.store, "p", "w1");
      const failed = await ctx.store.fail({
        ...fence,
        version: second?.version ?? -1,
        reason: "r",
        costMicroUsd: max,
      });
      expect(failed.task).toMatchObject({ status: "FAILED", spentMicroUsd: MAX_MICRO_USD });
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(MAX_MICRO_USD);
      // The event keeps the cost the worker reported.
      const fail = (await ctx.store.listEvents("p")).find((e) => e.eventType === "FAIL");
      expect(fail?.payload.cost_usd).toBe("99999999.999999");
    });

    it("still reports the budget crossing exactly once when the sum saturates", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: MAX_MICRO_USD, reserveMicroUsd: 0 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      const held = [];
      for (let i = 0; i < 3; i++) held.push(await claimAs(ctx.store, "p", "w1"));
      const crossed = [];
      for (const [i, t] of held.entries()) {
        const costMicroUsd = i === 0 ? MAX_MICRO_USD - 5 : 100;
        const fence = { planId: "p", taskId: t?.id ?? "", workerId: "w1", version: t?.version ?? -1 };
        crossed.push((await ctx.store.complete({ ...fence, costMicroUsd })).budgetExceeded);
      }
      expect(crossed).toEqual([false, true, false]);
      const sentinels = (await ctx.store.listEvents("p")).filter(
        (e) => e.eventType === "plan.budget_exceeded",
      );
      expect(sentinels.map((e) => e.payload.spent_usd)).toEqual(["99999999.999999"]);
    });
  });

  describe("plan.budget_exceeded", () => {
    it("is written once, by the finish that crosses the budget, with exact decimal amounts", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000_000, reserveMicroUsd: 0 });
      await ctx.store.importPlan(
        plan(
          "p",
          ids(3).map((id) => task(id)),
        ),
      );
      await runNext(ctx.store, "p", "w1", 600_000);
      const claimed = await claimAs(ctx.store, "p", "w1");
      const crossing = await ctx.store.complete({
        planId: "p",
        taskId: claimed?.id ?? "",
        workerId: "w1",
        version: claimed?.version ?? -1,
        costMicroUsd: 400_001,
      });
      expect(crossing.budgetExceeded).toBe(true);
      const sentinels = (await ctx.store.listEvents("p")).filter(
        (e) => e.eventType === "plan.budget_exceeded",
      );
      expect(sentinels.map((e) => [e.taskId, e.payload])).toEqual([
        [
          undefined,
          {
            plan_id: "p",
            budget_usd: "1.000000",
            spent_usd: "1.000001",
            crossing_task_id: "T-001",
            reason: "budget_threshold",
            threshold_pct: 100,
          },
        ],
      ]);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("is not written again by later finishes over the budget, nor for plans without one", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 100, reserveMicroUsd: 0 });
      await ctx.store.importPlan(
        plan(
          "p",
          ids(3).map((id) => task(id)),
        ),
      );
      await ctx.store.importPlan(plan("free", [task("A")]));
      const held = [
        await claimAs(ctx.store, "p", "w1"),
        await claimAs(ctx.store, "p", "w1"),
        await claimAs(ctx.store, "p", "w1"),
      ];
      const results = [];
      for (const t of held) {
        results.push(
          await ctx.store.complete({
            planId: "p",
            taskId: t?.id ?? "",
            workerId: "w1",
            version: t?.version ?? -1,
            costMicroUsd: 100,
          }),
        );
      }
      expect(results.map((r) => r.budgetExceeded)).toEqual([true, false, false]);
      await runNext(ctx.store, "free", "w1", 10_000_000);
      expect((await ctx.store.listEvents("free")).some((e) => e.eventType === "plan.budget_exceeded")).toBe(
        false,
      );
      const sentinels = (await ctx.store.listEvents("p")).filter(
        (e) => e.eventType === "plan.budget_exceeded",
      );
      expect(sentinels).toHaveLength(1);
    });

    it("is written when a failed attempt's cost crosses the budget", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 500, reserveMicroUsd: 0 });
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      const failed = await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: claimed?.version ?? -1,
        reason: "is_error",
        costMicroUsd: 500,
      });
      expect(failed.budgetExceeded).toBe(true);
      expect((await ctx.store.listEvents("p")).map((e) => e.eventType)).toEqual([
        "task.created",
        "CLAIM",
        "FAIL",
        "plan.budget_exceeded",
      ]);
    });

    it("is written exactly once when many finishes run at the same time, and the sum stays exact", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000_000, reserveMicroUsd: 0 });
      await ctx.store.importPlan(
        plan(
          "p",
          ids(20).map((id) => task(id)),
        ),
      );
      const workers = ids(20).map((id) => `w-${id}`);
      const held = [];
      for (const workerId of workers) held.push({ workerId, task: await claimAs(ctx.store, "p", workerId) });
      const results = await Promise.all(
        held.map(({ workerId, task: t }) =>
          ctx.store.complete({
            planId: "p",
            taskId: t?.id ?? "",
            workerId,
            version: t?.version ?? -1,
            costMicroUsd: 100_001,
          }),
        ),
      );
      expect(results.filter((r) => r.budgetExceeded)).toHaveLength(1);
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(20 * 100_001);
      const sentinels = (await ctx.store.listEvents("p")).filter(
        (e) => e.eventType === "plan.budget_exceeded",
      );
      expect(sentinels).toHaveLength(1);
      expect(sentinels[0]?.payload.spent_usd).toBe("1.000010");
    });
  });
}
