import { NotOwner, PlanNotFound, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { BearerNotStored } from "../workers/bearer.js";
import {
  type ContractContext,
  caught,
  claimAs,
  eventTypes,
  ONE_ATTEMPT,
  plan,
  task,
} from "./helpers.contract.js";

/**
 * Edges of the claim and the finish, which each run as one statement whose steps depend on each
 * other's rows: a step that must not run (a spent budget, a refused fence) must leave no trace, and
 * the steps that do run must write exactly what separate statements would have.
 */
export function describeOneStatementContract(ctx: ContractContext): void {
  describe("claim as one statement", () => {
    it("with start on a plan whose budget is spent: nothing claimed, started or logged", async () => {
      await ctx.store.createPlan({ id: "p", name: "spent", budgetMicroUsd: 10 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const a = await claimAs(ctx.store, "p", "w1");
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 10,
      });
      const before = await ctx.store.listEvents("p");
      const claimed = await ctx.store.claimWithPlan({
        planId: "p",
        workerId: "w1",
        leaseMs: 60_000,
        start: true,
      });
      expect(claimed).toBeUndefined();
      expect(await ctx.store.getTask("p", "B")).toMatchObject({ status: "PENDING", version: 0, attempts: 0 });
      expect(await ctx.store.listEvents("p")).toEqual(before);
    });

    it("with start where the reservation has no room: nothing claimed, reserved or logged", async () => {
      await ctx.store.createPlan({ id: "p", name: "tight", budgetMicroUsd: 100, reserveMicroUsd: 60 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const a = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      expect(a?.task).toMatchObject({ id: "A", status: "IN_PROGRESS", attempts: 1 });
      const before = await ctx.store.listEvents("p");
      // 0 spent + 60 reserved + 60 > 100.
      const b = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      expect(b).toBeUndefined();
      expect(await ctx.store.getTask("p", "B")).toMatchObject({ status: "PENDING", version: 0, attempts: 0 });
      expect((await ctx.store.getPlan("p"))?.reservedMicroUsd).toBe(60);
      expect(await ctx.store.listEvents("p")).toEqual(before);
    });

    it("on a missing plan, with or without start: PlanNotFound, and other plans untouched", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      for (const start of [false, true]) {
        const error = await caught(
          ctx.store.claimWithPlan({ planId: "nope", workerId: "w1", leaseMs: 1000, start }),
        );
        expect(error).toBeInstanceOf(PlanNotFound);
      }
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING", version: 0 });
      expect(await eventTypes(ctx.store, "p")).toEqual(["task.created"]);
    });

    it("answers the plan's spend as the claim's budget check read it", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000_000 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const a = await claimAs(ctx.store, "p", "w1");
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 250,
      });
      const claimed = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      expect(claimed?.plan).toMatchObject({ id: "p", budgetMicroUsd: 1_000_000, spentMicroUsd: 250 });
      expect(claimed?.task).toMatchObject({ id: "B", status: "CLAIMED", spentMicroUsd: 0 });
    });
  });

  describe("finish as one statement", () => {
    it("a complete readies every dependent whose last dependency it was, and only those", async () => {
      await ctx.store.importPlan(
        plan("p", [
          task("A"),
          task("Z"),
          task("B", { deps: ["A"] }),
          task("C", { deps: ["A"] }),
          task("D", { deps: ["A"] }),
          task("E", { deps: ["A", "Z"] }),
        ]),
      );
      const a = await claimAs(ctx.store, "p", "w1");
      expect(a?.id).toBe("A");
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 0,
      });
      const ready = [];
      for (let next = await claimAs(ctx.store, "p", "w1"); next; next = await claimAs(ctx.store, "p", "w1")) {
        ready.push(next.id);
      }
      expect(ready).toEqual(["B", "C", "D", "Z"]);
      expect(await ctx.store.getTask("p", "E")).toMatchObject({ status: "PENDING", version: 0 });
    });

    it("concurrent completes of parents sharing several dependents ready each of them exactly once", async () => {
      const parents = ["P0", "P1", "P2", "P3", "P4", "P5"];
      const children = ["C0", "C1", "C2", "C3"];
      await ctx.store.importPlan(
        plan("p", [...parents.map((id) => task(id)), ...children.map((id) => task(id, { deps: parents }))]),
      );
      const held = [];
      for (const [i] of parents.entries()) held.push(await claimAs(ctx.store, "p", `w${i}`));
      await Promise.all(
        held.map((t, i) =>
          ctx.store.complete({
            planId: "p",
            taskId: t?.id ?? "",
            workerId: `w${i}`,
            version: t?.version ?? -1,
            costMicroUsd: 0,
          }),
        ),
      );
      const claimed = [];
      for (let next = await claimAs(ctx.store, "p", "w0"); next; next = await claimAs(ctx.store, "p", "w0")) {
        claimed.push(next.id);
      }
      expect(claimed).toEqual(children);
      expect((await ctx.store.listEvents("p")).filter((e) => e.eventType === "CLAIM")).toHaveLength(10);
    });

    it("a refused complete writes nothing: no event, no spend, no dependent released", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 5 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      const a = await claimAs(ctx.store, "p", "w1");
      await ctx.store.upsertWorker({ workerId: "w2", hostname: "h" });
      const before = await ctx.store.listEvents("p");
      const fence = { planId: "p", taskId: "A", costMicroUsd: 7 };
      const stale = await caught(ctx.store.complete({ ...fence, workerId: "w1", version: 99 }));
      expect(stale).toBeInstanceOf(VersionConflict);
      expect(stale).toMatchObject({ actualVersion: a?.version, actualStatus: "CLAIMED" });
      const other = await caught(ctx.store.complete({ ...fence, workerId: "w2", version: a?.version ?? -1 }));
      expect(other).toBeInstanceOf(NotOwner);
      const gone = await caught(ctx.store.complete({ ...fence, planId: "nope", workerId: "w1", version: 1 }));
      expect(gone).toMatchObject({ actualVersion: undefined, actualStatus: undefined });
      expect(await ctx.store.listEvents("p")).toEqual(before);
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(0);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "CLAIMED", spentMicroUsd: 0 });
      expect(await ctx.store.getTask("p", "B")).toMatchObject({ version: 0 });
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("a complete that readies dependents and crosses the budget logs COMPLETE, then the crossing", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 100 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      const a = await claimAs(ctx.store, "p", "w1");
      const done = await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        costMicroUsd: 150,
        detail: { note: "x" },
      });
      expect(done).toMatchObject({ budgetExceeded: true, task: { status: "DONE", spentMicroUsd: 150 } });
      const events = (await ctx.store.listEvents("p")).slice(-2);
      expect(events.map((e) => [e.eventType, e.taskId, e.payload, e.detail])).toEqual([
        ["COMPLETE", "A", { version: 2, worker_id: "w1", cost_usd: "0.000150" }, { note: "x" }],
        [
          "plan.budget_exceeded",
          undefined,
          {
            plan_id: "p",
            budget_usd: "0.000100",
            spent_usd: "0.000150",
            crossing_task_id: "A",
            reason: "budget_threshold",
            threshold_pct: 100,
          },
          undefined,
        ],
      ]);
      // B is ready but the spent budget holds every claim.
      expect(await ctx.store.getTask("p", "B")).toMatchObject({ status: "PENDING", version: 0 });
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });
  });

  describe("a presented bearer checked in the operation's statement", () => {
    const mine = { tokenHash: "a".repeat(64) };
    const theirs = { tokenHash: "b".repeat(64) };
    const register = async () => {
      await ctx.store.registerWorker({ workerId: "w1", hostname: "h", tokenHash: mine.tokenHash });
      await ctx.store.registerWorker({ workerId: "w2", hostname: "h", tokenHash: theirs.tokenHash });
    };

    it("claims with the worker's own stored bearer, and refuses any other before anything else", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await register();
      const claim = (bearer: { tokenHash: string }, planId = "p") =>
        ctx.store.claimWithPlan({ planId, workerId: "w1", leaseMs: 60_000, start: true, bearer });
      expect(await caught(claim(theirs))).toBeInstanceOf(BearerNotStored);
      expect(await caught(claim({ tokenHash: "c".repeat(64) }))).toBeInstanceOf(BearerNotStored);
      // Refused before the plan is looked at: an unknown plan is no answer for a refused bearer.
      expect(await caught(claim(theirs, "nope"))).toBeInstanceOf(BearerNotStored);
      expect(await caught(claim(mine, "nope"))).toBeInstanceOf(PlanNotFound);
      expect(await eventTypes(ctx.store, "p")).toEqual(["task.created"]);
      expect((await claim(mine))?.task).toMatchObject({ id: "A", status: "IN_PROGRESS", claimedBy: "w1" });
      await ctx.store.revokeWorker("w1");
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      expect(await caught(claim(mine))).toBeInstanceOf(BearerNotStored);
    });

    it("finishes with the worker's own stored bearer; a refused one changes nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] }), task("C")], ONE_ATTEMPT));
      await register();
      const a = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      const c = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      const before = await ctx.store.listEvents("p");
      const fence = { planId: "p", taskId: "A", workerId: "w1", version: a?.version ?? -1, costMicroUsd: 3 };
      expect(await caught(ctx.store.complete({ ...fence, bearer: theirs }))).toBeInstanceOf(BearerNotStored);
      const failC = { ...fence, taskId: "C", version: c?.version ?? -1, reason: "r", bearer: theirs };
      expect(await caught(ctx.store.fail(failC))).toBeInstanceOf(BearerNotStored);
      // Refused before the fence: a stale version is no answer for a refused bearer either.
      expect(await caught(ctx.store.complete({ ...fence, version: 99, bearer: theirs }))).toBeInstanceOf(
        BearerNotStored,
      );
      expect(await ctx.store.listEvents("p")).toEqual(before);
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(0);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "CLAIMED", version: a?.version });
      const done = await ctx.store.complete({ ...fence, bearer: mine });
      expect(done.task).toMatchObject({ status: "DONE", spentMicroUsd: 3 });
      const failed = await ctx.store.fail({ ...failC, bearer: mine });
      expect(failed.task).toMatchObject({ status: "FAILED" });
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "B" });
    });
  });
}
