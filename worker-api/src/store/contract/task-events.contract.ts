import { Forbidden, TaskNotFound } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, eventTypes, plan, task } from "./helpers.contract.js";

/**
 * A worker's event about a task it ran (the failure analysis): written once per key with its cost
 * added to the task's and the plan's spend, crossing the budget like an attempt's cost; refused for a
 * task the worker never claimed.
 */
export function describeTaskEventContract(ctx: ContractContext): void {
  describe("worker task events", () => {
    const finding = (key: string, costMicroUsd: number) => ({
      planId: "p",
      taskId: "A",
      workerId: "w1",
      eventType: "triz.contradiction",
      payload: { contradiction_type: "technical", reason: "r" },
      costMicroUsd,
      idempotencyKey: key,
    });

    it("writes the event and its spend once per key, and crosses the budget like an attempt", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]), { budgetMicroUsd: 1_000 });
      await claimAs(ctx.store, "p", "w1");
      for (let i = 0; i < 3; i++) {
        const { recorded } = await ctx.store.recordTaskEvent(finding("q-1", 1_200));
        expect(recorded).toBe(i === 0);
      }
      const spendOnly = { ...finding("q-2", 300), eventType: undefined };
      expect(await ctx.store.recordTaskEvent(spendOnly)).toEqual({ recorded: true });
      expect(await ctx.store.recordTaskEvent({ ...finding("q-3", 0), eventType: "triz.error" })).toEqual({
        recorded: true,
      });
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(1_500);
      expect((await ctx.store.getTask("p", "A"))?.spentMicroUsd).toBe(1_500);
      expect(await eventTypes(ctx.store, "p")).toEqual([
        "task.created",
        "CLAIM",
        "triz.contradiction",
        "plan.budget_exceeded",
        "triz.error",
      ]);
      const [event] = (await ctx.store.listEvents("p", { limit: 100 })).filter(
        (e) => e.eventType === "triz.contradiction",
      );
      expect(event?.payload).toEqual({ contradiction_type: "technical", reason: "r", worker_id: "w1" });
    });

    it("refuses a task the worker never claimed, and one the plan lacks, writing nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await claimAs(ctx.store, "p", "w1");
      await ctx.store.upsertWorker({ workerId: "w2", hostname: "h" });
      expect(await caught(ctx.store.recordTaskEvent({ ...finding("k", 5), workerId: "w2" }))).toBeInstanceOf(
        Forbidden,
      );
      expect(await caught(ctx.store.recordTaskEvent({ ...finding("k", 5), taskId: "Z" }))).toBeInstanceOf(
        TaskNotFound,
      );
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(0);
      expect(await eventTypes(ctx.store, "p")).toEqual(["task.created", "CLAIM"]);
    });

    it("leaves the claim's reservation to attempt costs: many cheap findings do not shrink it", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000_000 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      const a = await claimAs(ctx.store, "p", "w1");
      const fence = { planId: "p", taskId: "A", workerId: "w1", version: a?.version ?? -1 };
      await ctx.store.complete({ ...fence, costMicroUsd: 300_000 });
      // More findings than the reservation's window of recent costs, each far cheaper than an attempt.
      for (let i = 0; i < 25; i++) await ctx.store.recordTaskEvent(finding(`cheap-${i}`, 1));
      expect((await claimAs(ctx.store, "p", "w1"))?.id).toBe("B");
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(300_000);
    });
  });
}
