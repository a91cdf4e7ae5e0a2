import { NotOwner, type TaskFence, TaskNotFound, type TaskRecord, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { Store } from "../store.js";
import {
  type ContractContext,
  caught,
  claimAs,
  eventTypes,
  ONE_ATTEMPT,
  plan,
  sleep,
  task,
} from "./helpers.contract.js";

/** `lostCost`: what a refused call from a worker that really held the attempt still adds to spend. */
type Mutation = {
  name: string;
  run: (store: Store, fence: TaskFence) => Promise<unknown>;
  lostCost: number;
};

const MUTATIONS: Mutation[] = [
  { name: "start", run: (store, fence) => store.start(fence), lostCost: 0 },
  { name: "complete", run: (store, fence) => store.complete({ ...fence, costMicroUsd: 10 }), lostCost: 10 },
  {
    name: "fail",
    run: (store, fence) => store.fail({ ...fence, reason: "is_error", costMicroUsd: 10 }),
    lostCost: 10,
  },
  {
    name: "release",
    run: (store, fence) => store.release({ ...fence, reason: "shutdown", costMicroUsd: 10 }),
    lostCost: 10,
  },
];

/** Every mutation is fenced by version, status and owner, with exact error fields; and skipTask. */
export function describeFencingContract(ctx: ContractContext): void {
  async function claimedTask(): Promise<TaskRecord> {
    await ctx.store.importPlan(plan("p", [task("A")]));
    await ctx.store.upsertWorker({ workerId: "intruder", hostname: "h" });
    const claimed = await claimAs(ctx.store, "p", "owner");
    if (!claimed) throw new Error("no task claimed");
    return claimed;
  }

  /** The task, its events and the plan's spend: a refused call must change none of them. */
  async function snapshot() {
    return {
      task: await ctx.store.getTask("p", "A"),
      events: await eventTypes(ctx.store, "p"),
      spent: (await ctx.store.getPlan("p"))?.spentMicroUsd,
    };
  }

  describe.each(MUTATIONS)("$name fencing", ({ run, lostCost }) => {
    it("refuses a stale version with VersionConflict naming the actual version and status", async () => {
      const claimed = await claimedTask();
      const before = await snapshot();
      const error = await caught(run(ctx.store, { planId: "p", taskId: "A", workerId: "owner", version: 0 }));
      expect(error).toBeInstanceOf(VersionConflict);
      expect(error).toMatchObject({
        code: "version_conflict",
        taskId: "A",
        planId: "p",
        expectedVersion: 0,
        actualVersion: claimed.version,
        actualStatus: "CLAIMED",
      });
      expect(await snapshot()).toEqual(before);
    });

    it("refuses another worker with NotOwner naming the owner", async () => {
      const claimed = await claimedTask();
      const before = await snapshot();
      const error = await caught(
        run(ctx.store, { planId: "p", taskId: "A", workerId: "intruder", version: claimed.version }),
      );
      expect(error).toBeInstanceOf(NotOwner);
      expect(error).toMatchObject({
        code: "not_owner",
        taskId: "A",
        workerId: "intruder",
        ownerId: "owner",
        version: claimed.version,
        status: "CLAIMED",
      });
      expect(await snapshot()).toEqual(before);
    });

    it("refuses a task that does not exist with VersionConflict and no actual fields", async () => {
      await claimedTask();
      for (const fence of [
        { planId: "p", taskId: "missing", workerId: "owner", version: 1 },
        { planId: "no plan", taskId: "A", workerId: "owner", version: 1 },
      ]) {
        const error = await caught(run(ctx.store, fence));
        expect(error).toBeInstanceOf(VersionConflict);
        expect(error).toMatchObject({
          taskId: fence.taskId,
          expectedVersion: 1,
          actualVersion: undefined,
          actualStatus: undefined,
        });
      }
    });

    it("refuses a late call from a worker whose lease expired and was taken by another", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await ctx.store.upsertWorker({ workerId: "slow", hostname: "h" });
      const lost = await ctx.store.claim({ planId: "p", workerId: "slow", leaseMs: 1 });
      await sleep(30);
      expect((await ctx.store.releaseExpiredLeases()).map((t) => t.id)).toEqual(["A"]);
      const retaken = await claimAs(ctx.store, "p", "fast");
      const before = await snapshot();
      const error = await caught(
        run(ctx.store, { planId: "p", taskId: "A", workerId: "slow", version: lost?.version ?? -1 }),
      );
      expect(error).toMatchObject({
        code: "version_conflict",
        actualVersion: retaken?.version,
        actualStatus: "CLAIMED",
      });
      // The agent ran and its cost is real: a finish counts it on the plan, leaving the task alone.
      expect(await snapshot()).toEqual({ ...before, spent: (before.spent ?? 0) + lostCost });
    });
  });

  describe("status fencing", () => {
    it("refuses start from IN_PROGRESS at the current version with the actual status", async () => {
      const claimed = await claimedTask();
      const started = await ctx.store.start({
        planId: "p",
        taskId: "A",
        workerId: "owner",
        version: claimed.version,
      });
      const error = await caught(
        ctx.store.start({ planId: "p", taskId: "A", workerId: "owner", version: started.version }),
      );
      expect(error).toMatchObject({
        code: "version_conflict",
        expectedVersion: started.version,
        actualVersion: started.version,
        actualStatus: "IN_PROGRESS",
      });
    });

    it("refuses every finish of a DONE task", async () => {
      const claimed = await claimedTask();
      const done = await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "owner",
        version: claimed.version,
        costMicroUsd: 0,
      });
      for (const { run } of MUTATIONS) {
        const error = await caught(
          run(ctx.store, { planId: "p", taskId: "A", workerId: "owner", version: done.task.version }),
        );
        expect(error).toMatchObject({ code: "version_conflict", actualStatus: "DONE" });
      }
    });
  });

  describe("transitions", () => {
    it("start counts an attempt; complete clears the claim; a finish straight from CLAIMED counts one too", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")], ONE_ATTEMPT));
      const a = await claimAs(ctx.store, "p", "w1");
      const started = await ctx.store.start({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
      });
      expect(started).toMatchObject({ status: "IN_PROGRESS", attempts: 1, version: 2, claimedBy: "w1" });
      const done = await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: 2,
        costMicroUsd: 5,
      });
      expect(done.task).toMatchObject({
        status: "DONE",
        attempts: 1,
        version: 3,
        claimedBy: undefined,
        claimedAt: undefined,
        leaseExpiresAt: undefined,
        spentMicroUsd: 5,
      });
      const b = await claimAs(ctx.store, "p", "w1");
      const failed = await ctx.store.fail({
        planId: "p",
        taskId: "B",
        workerId: "w1",
        version: b?.version ?? -1,
        reason: "timeout",
        costMicroUsd: 7,
      });
      expect(failed.task).toMatchObject({
        status: "FAILED",
        attempts: 1,
        claimedBy: undefined,
        spentMicroUsd: 7,
      });
    });

    it("release returns the task to PENDING, unowned, claimable again, and adds the interrupted run's cost", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const a = await claimAs(ctx.store, "p", "w1");
      const started = await ctx.store.start({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
      });
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: started.version,
        reason: "shutdown",
        costMicroUsd: 300,
      });
      expect(released).toMatchObject({
        status: "PENDING",
        claimedBy: undefined,
        leaseExpiresAt: undefined,
        attempts: 0,
      });
      expect(released.spentMicroUsd).toBe(300);
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(300);
      expect(await claimAs(ctx.store, "p", "w2")).toMatchObject({ id: "A", claimedBy: "w2" });
    });
  });

  describe("skipTask", () => {
    it("skips a PENDING task with task.skipped whose reserved keys detail cannot override", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      const skipped = await ctx.store.skipTask({
        planId: "p",
        taskId: "A",
        reason: "decision_gate_failed",
        detail: { missing: ["description"], version: 99, reason: "overridden?" },
      });
      expect(skipped).toMatchObject({ status: "SKIPPED", version: 1 });
      const events = await ctx.store.listEvents("p", { afterId: 2 });
      expect(events.map((e) => [e.eventType, e.taskId, e.payload])).toEqual([
        ["task.skipped", "A", { missing: ["description"], version: 1, reason: "decision_gate_failed" }],
      ]);
      const again = await ctx.store.skipTask({ planId: "p", taskId: "A", reason: "decision_gate_failed" });
      expect(again).toEqual(skipped);
      expect(await ctx.store.listEvents("p", { afterId: 3 })).toEqual([]);
    });

    it("skips a claimed task, clearing the claim, so its worker's finish is refused", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      const skipped = await ctx.store.skipTask({ planId: "p", taskId: "A", reason: "operator" });
      expect(skipped).toMatchObject({ status: "SKIPPED", claimedBy: undefined, leaseExpiresAt: undefined });
      const error = await caught(
        ctx.store.complete({
          planId: "p",
          taskId: "A",
          workerId: "w1",
          version: claimed?.version ?? -1,
          costMicroUsd: 0,
        }),
      );
      expect(error).toMatchObject({ code: "version_conflict", actualStatus: "SKIPPED" });
    });

    it("refuses DONE and FAILED tasks, and reports a missing task", async () => {
      await ctx.store.importPlan(plan("p", [task("A", { status: "DONE" }), task("B", { status: "FAILED" })]));
      for (const taskId of ["A", "B"]) {
        const error = await caught(ctx.store.skipTask({ planId: "p", taskId, reason: "x" }));
        expect(error).toBeInstanceOf(VersionConflict);
        expect(error).toMatchObject({ actualVersion: 0, actualStatus: taskId === "A" ? "DONE" : "FAILED" });
      }
      expect(await caught(ctx.store.skipTask({ planId: "p", taskId: "C", reason: "x" }))).toBeInstanceOf(
        TaskNotFound,
      );
    });
  });
}
