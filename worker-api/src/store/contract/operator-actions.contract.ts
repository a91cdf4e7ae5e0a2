import { NotOwner, PlanNotFound, TaskNotFound, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, ONE_ATTEMPT, plan, task } from "./helpers.contract.js";

/** An operator's actions: retry one failed task, take back one held task, pause and resume every worker. */
export function describeOperatorActionContract(ctx: ContractContext): void {
  /** Task A of plan p, failed on its only attempt. */
  async function failedTask() {
    await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })], ONE_ATTEMPT));
    const claimed = await claimAs(ctx.store, "p", "w1");
    if (!claimed) throw new Error("no task claimed");
    const running = await ctx.store.start({
      planId: "p",
      taskId: "A",
      workerId: "w1",
      version: claimed.version,
    });
    const failed = await ctx.store.fail({
      planId: "p",
      taskId: "A",
      workerId: "w1",
      version: running.version,
      costMicroUsd: 0,
      reason: "agent_error",
      failure: { output_tail: "tests failed" },
    });
    expect(failed.task.status).toBe("FAILED");
    return failed.task;
  }

  describe("operator actions", () => {
    it("resetTask sends a FAILED task back to PENDING with fresh attempts and writes RESET", async () => {
      const failed = await failedTask();
      const reset = await ctx.store.resetTask("p", "A");
      expect(reset).toMatchObject({ status: "PENDING", attempts: 0, claimedBy: undefined });
      expect(reset.version).toBeGreaterThan(failed.version);
      expect(reset.lastFailure).toMatchObject({ output_tail: "tests failed" });
      const events = await ctx.store.listEvents("p");
      expect(events.at(-1)).toMatchObject({
        taskId: "A",
        eventType: "RESET",
        payload: { reason: "retry_failed", mode: "task", version: reset.version },
      });
      expect((await claimAs(ctx.store, "p", "w2"))?.id).toBe("A");
    });

    it("resetTask refuses a task that is not FAILED with its actual status, and a missing one", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const conflict = await caught(ctx.store.resetTask("p", "A"));
      expect(conflict).toBeInstanceOf(VersionConflict);
      expect(conflict).toMatchObject({ actualStatus: "PENDING", planId: "p" });
      expect(await caught(ctx.store.resetTask("p", "nope"))).toBeInstanceOf(TaskNotFound);
      expect(await caught(ctx.store.resetTask("nope", "A"))).toBeInstanceOf(PlanNotFound);
      expect((await ctx.store.listEvents("p")).map((e) => e.eventType)).not.toContain("RESET");
    });

    it("releaseTask takes a running task back as admin_release, fencing out its worker", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      if (!claimed) throw new Error("no task claimed");
      const running = await ctx.store.start({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: claimed.version,
      });
      const released = await ctx.store.releaseTask("p", "A");
      expect(released).toMatchObject({ status: "PENDING", claimedBy: undefined, attempts: 1 });
      expect((await ctx.store.listEvents("p")).at(-1)).toMatchObject({
        eventType: "RELEASE",
        payload: { reason: "admin_release", worker_id: "w1", version: released.version },
      });
      const late = await caught(
        ctx.store.complete({
          planId: "p",
          taskId: "A",
          workerId: "w1",
          version: running.version,
          costMicroUsd: 0,
        }),
      );
      expect(late instanceof VersionConflict || late instanceof NotOwner).toBe(true);
      expect((await claimAs(ctx.store, "p", "w2"))?.id).toBe("A");
    });

    it("releaseTask refuses a task nobody holds with its actual status", async () => {
      await failedTask();
      const conflict = await caught(ctx.store.releaseTask("p", "A"));
      expect(conflict).toBeInstanceOf(VersionConflict);
      expect(conflict).toMatchObject({ actualStatus: "FAILED" });
      expect(await caught(ctx.store.releaseTask("p", "B-missing"))).toBeInstanceOf(TaskNotFound);
    });

    it("a pause stops every claim, also of workers that register later, until resumed", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const held = await claimAs(ctx.store, "p", "w1");
      if (!held) throw new Error("no task claimed");
      const pause = await ctx.store.pauseWorkers();
      expect(pause.reason).toBe("admin");
      expect(await ctx.store.readWorkersPause()).toEqual(pause);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
      expect(await claimAs(ctx.store, "p", "late-worker")).toBeUndefined();
      // The task in flight finishes normally.
      const done = await ctx.store.complete({
        planId: "p",
        taskId: held.id,
        workerId: "w1",
        version: held.version,
        costMicroUsd: 0,
      });
      expect(done.task.status).toBe("DONE");
      expect(await ctx.store.pauseWorkers()).toEqual(pause);
      expect(await ctx.store.resumeWorkers()).toEqual({ resumed: true, planIds: ["p"] });
      expect(await ctx.store.readWorkersPause()).toBeUndefined();
      expect((await claimAs(ctx.store, "p", "late-worker"))?.id).toBe("B");
      expect(await ctx.store.resumeWorkers()).toEqual({ resumed: false, planIds: [] });
    });

    it("pause and resume write worker.paused and worker.resumed once in each unfinished plan", async () => {
      await ctx.store.importPlan(plan("open", [task("A")]));
      await ctx.store.importPlan(plan("done", [task("A", { status: "DONE" })]));
      await ctx.store.pauseWorkers();
      await ctx.store.pauseWorkers();
      await ctx.store.resumeWorkers();
      const events = (await ctx.store.listEvents("open")).filter((e) => e.eventType.startsWith("worker."));
      expect(events).toMatchObject([
        {
          eventType: "worker.paused",
          taskId: undefined,
          payload: { worker_id: null, reason: "admin", until: null, message: "" },
        },
        { eventType: "worker.resumed", payload: { worker_id: null, reason: "admin" } },
      ]);
      const finished = await ctx.store.listEvents("done");
      expect(finished.filter((e) => e.eventType.startsWith("worker."))).toEqual([]);
    });
  });
}
