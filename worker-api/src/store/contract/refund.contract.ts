import { describe, expect, it } from "vitest";
import { type ContractContext, claimAs, plan, task } from "./helpers.contract.js";

/** A release whose reason refunds (`agent_unavailable`, `shutdown`) gives the started attempt back; others do not. */
export function describeRefundContract(ctx: ContractContext): void {
  async function started() {
    await ctx.store.importPlan(plan("p", [task("A")]));
    const claimed = await claimAs(ctx.store, "p", "w1");
    if (!claimed) throw new Error("no task claimed");
    const running = await ctx.store.start({
      planId: "p",
      taskId: "A",
      workerId: "w1",
      version: claimed.version,
    });
    expect(running.attempts).toBe(1);
    return running;
  }

  describe("release refunds", () => {
    it("agent_unavailable returns a started task to PENDING with its attempt given back", async () => {
      const running = await started();
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: running.version,
        reason: "agent_unavailable",
      });
      expect(released).toMatchObject({ status: "PENDING", attempts: 0 });
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING", attempts: 0 });
      const events = await ctx.store.listEvents("p");
      expect(events.at(-1)).toMatchObject({
        eventType: "RELEASE",
        payload: { reason: "agent_unavailable", worker_id: "w1", version: released.version },
      });
    });

    it("agent_unavailable on a task not yet started leaves the count as it was", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      if (!claimed) throw new Error("no task claimed");
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: claimed.version,
        reason: "agent_unavailable",
      });
      expect(released).toMatchObject({ status: "PENDING", attempts: claimed.attempts });
    });

    it("a shutdown release gives the attempt back and keeps what it cost on the plan", async () => {
      const running = await started();
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: running.version,
        reason: "shutdown",
        costMicroUsd: 7_000,
        idempotencyKey: "k-shutdown",
      });
      expect(released).toMatchObject({ status: "PENDING", attempts: 0 });
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(7_000);
    });

    it("a release for another reason keeps the attempt counted", async () => {
      const running = await started();
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: running.version,
        reason: "handed back",
      });
      expect(released).toMatchObject({ status: "PENDING", attempts: 1 });
    });
  });
}
