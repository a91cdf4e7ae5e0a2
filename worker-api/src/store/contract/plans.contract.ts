import { PlanInvalid, PlanNotFound } from "@whilly/core";
import { describe, expect, it } from "vitest";
import {
  type ContractContext,
  caught,
  claimAs,
  eventTypes,
  ONE_ATTEMPT,
  plan,
  runNext,
  task,
} from "./helpers.contract.js";

/** Import, plan creation, listing, reset, and plan identity. */
export function describePlanContract(ctx: ContractContext): void {
  describe("importPlan", () => {
    it("sets the budget of a plan it creates, in the same statement; a stored plan keeps its own", async () => {
      const created = await ctx.store.importPlan(plan("p", [task("A")]), { budgetMicroUsd: 2_500_000 });
      expect(created.plan.budgetMicroUsd).toBe(2_500_000);
      const again = await ctx.store.importPlan(plan("p", [task("A")]), { budgetMicroUsd: 9 });
      expect(again.plan.budgetMicroUsd).toBe(2_500_000);
      expect(
        await caught(ctx.store.importPlan(plan("q", [task("A")]), { budgetMicroUsd: -1 })),
      ).toMatchObject({
        field: "budgetMicroUsd",
      });
      expect(await ctx.store.getPlan("q")).toBeUndefined();
    });

    it("reset failed puts only FAILED tasks back to PENDING with a fresh set of attempts, keeping spend", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C", { deps: ["A"] })], ONE_ATTEMPT));
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const a = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        reason: "x",
        costMicroUsd: 7,
      });
      const b = await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
      await ctx.store.complete({
        planId: "p",
        taskId: "B",
        workerId: "w1",
        version: b?.version ?? -1,
        costMicroUsd: 0,
      });
      expect(await ctx.store.resetPlan("p", "failed")).toBe(1);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
        ["A", "PENDING", 0],
        ["B", "DONE", 1],
        ["C", "PENDING", 0],
      ]);
      expect(tasks[0]?.spentMicroUsd).toBe(7);
      const last = (await ctx.store.listEvents("p")).at(-1);
      expect([last?.eventType, last?.taskId, last?.payload.reason]).toEqual(["RESET", "A", "retry_failed"]);
      expect((await ctx.store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 }))?.id).toBe("A");
      expect(await ctx.store.resetPlan("p", "failed")).toBe(0);
    });

    it("creates the plan and its tasks with one task.created event each, and no plan event", async () => {
      const result = await ctx.store.importPlan(
        plan("p", [task("A"), task("B", { deps: ["A"], priority: "high" })], {
          agentInstructions: { before: ["read the README"], after: ["run the tests"] },
          extra: { prd_file: "docs/prd.md" },
        }),
      );
      expect(result).toMatchObject({ planCreated: true, inserted: ["A", "B"], unchanged: [], changed: [] });
      expect(result.plan).toMatchObject({
        id: "p",
        name: "Plan p",
        budgetMicroUsd: undefined,
        spentMicroUsd: 0,
        agentInstructions: { before: ["read the README"], after: ["run the tests"] },
        extra: { prd_file: "docs/prd.md" },
      });
      const events = await ctx.store.listEvents("p");
      expect(events.map((e) => [e.eventType, e.taskId, e.payload])).toEqual([
        ["task.created", "A", { priority: "medium", dependencies: [] }],
        ["task.created", "B", { priority: "high", dependencies: ["A"] }],
      ]);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.map((t) => [t.id, t.status, t.version, t.attempts, t.spentMicroUsd])).toEqual([
        ["A", "PENDING", 0, 0, 0],
        ["B", "PENDING", 0, 0, 0],
      ]);
      expect(tasks[1]).toMatchObject({
        keyFiles: ["src/B.ts"],
        acceptanceCriteria: ["B works"],
        dependencies: ["A"],
      });
    });

    it("is idempotent: a second import inserts nothing, writes no event and reports every task unchanged", async () => {
      const spec = plan("p", [
        task("A", { extra: { phase: 1, title: "first" } }),
        task("B", { deps: ["A"] }),
      ]);
      await ctx.store.importPlan(spec);
      const before = await ctx.store.listEvents("p");
      const again = await ctx.store.importPlan(spec);
      expect(again).toMatchObject({ planCreated: false, inserted: [], unchanged: ["A", "B"], changed: [] });
      expect(await ctx.store.listEvents("p")).toEqual(before);
    });

    it("leaves stored tasks untouched and lists those whose file content changed", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { extra: { a: 1, b: 2 } }), task("C")]));
      const result = await ctx.store.importPlan(
        plan("p", [
          task("A", { description: "something else" }),
          task("B", { extra: { b: 2, a: 1 } }),
          task("C", { priority: "critical" }),
        ]),
      );
      expect(result.changed).toEqual(["A", "C"]);
      expect(result.unchanged).toEqual(["B"]);
      const stored = await ctx.store.getTask("p", "A");
      expect(stored?.description).toBe("do A");
      expect((await ctx.store.getTask("p", "C"))?.priority).toBe("medium");
    });

    it("does not count queue state (status, version) as a change", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await runNext(ctx.store, "p", "w1");
      const result = await ctx.store.importPlan(plan("p", [task("A")]));
      expect(result).toMatchObject({ unchanged: ["A"], changed: [] });
      expect((await ctx.store.getTask("p", "A"))?.status).toBe("DONE");
    });

    it("stores an imported CLAIMED or IN_PROGRESS task as PENDING, with no owner, and says so", async () => {
      const result = await ctx.store.importPlan(
        plan("p", [
          task("A", { status: "CLAIMED" }),
          task("B", { status: "IN_PROGRESS" }),
          task("C", { status: "DONE" }),
        ]),
      );
      expect(result.demotedToPending).toEqual(["A", "B"]);
      const tasks = await ctx.store.listTasks("p");
      expect(tasks.map((t) => [t.id, t.status, t.claimedBy, t.leaseExpiresAt])).toEqual([
        ["A", "PENDING", undefined, undefined],
        ["B", "PENDING", undefined, undefined],
        ["C", "DONE", undefined, undefined],
      ]);
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "A" });
    });

    it("counts only dependencies that are not DONE: a task whose dependencies were imported DONE is ready", async () => {
      await ctx.store.importPlan(
        plan("p", [
          task("A", { status: "DONE" }),
          task("B", { deps: ["A"] }),
          task("C", { deps: ["A", "B"] }),
        ]),
      );
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "B" });
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("computes a task added later from the stored statuses of its dependencies", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await runNext(ctx.store, "p", "w1");
      const result = await ctx.store.importPlan(
        plan("p", [task("A"), task("B"), task("C", { deps: ["A"] }), task("D", { deps: ["A", "B"] })]),
      );
      expect(result.inserted).toEqual(["C", "D"]);
      expect(await claimAs(ctx.store, "p", "w2")).toMatchObject({ id: "B" });
      expect(await claimAs(ctx.store, "p", "w2")).toMatchObject({ id: "C" });
      expect(await claimAs(ctx.store, "p", "w2")).toBeUndefined();
    });

    it("refuses a dependency that is neither in the file nor stored, and stores nothing", async () => {
      const error = await caught(ctx.store.importPlan(plan("p", [task("A", { deps: ["ghost"] })])));
      expect(error).toBeInstanceOf(PlanInvalid);
      expect((error as PlanInvalid).issues).toEqual([
        { path: "tasks[A].dependencies", taskId: "A", message: "task 'A' depends on unknown task 'ghost'" },
      ]);
      expect(await ctx.store.getPlan("p")).toBeUndefined();
    });

    it("keeps every agent_instructions key: lines for prompts, other values for export", async () => {
      const lines = { before_start: ["pull"], during_work: ["commit often"], style: ["two spaces"] };
      const kept = { max_retries: 3, reviewer: { name: "Dana" } };
      await ctx.store.importPlan(
        plan("p", [task("A")], { agentInstructions: lines, keptInstructions: kept }),
      );
      const stored = await ctx.store.getPlan("p");
      expect(stored).toMatchObject({ agentInstructions: lines, keptInstructions: kept });
      const again = await ctx.store.importPlan(
        plan("p", [task("A")], { agentInstructions: lines, keptInstructions: kept }),
      );
      expect(again.planChanged).toEqual([]);
      await ctx.store.upsertWorker({ workerId: "w1", hostname: "h" });
      const claimed = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      expect(claimed?.plan.agentInstructions).toEqual(lines);
    });

    it("fills the instructions of a plan made by createPlan, keeping its budget", async () => {
      await ctx.store.createPlan({ id: "p", name: "Created", budgetMicroUsd: 5_000_000 });
      const result = await ctx.store.importPlan(
        plan("p", [task("A")], { agentInstructions: { before: ["b"], after: ["a"] }, extra: { k: "v" } }),
      );
      expect(result.planCreated).toBe(false);
      expect(result.plan).toMatchObject({
        name: "Created",
        budgetMicroUsd: 5_000_000,
        agentInstructions: { before: ["b"], after: ["a"] },
        extra: { k: "v" },
      });
    });
  });

  describe("createPlan, getPlan and listPlans", () => {
    it("creates once; a second create with another budget changes nothing and writes no event", async () => {
      const first = await ctx.store.createPlan({ id: "p", name: "One", budgetMicroUsd: 1_500_000 });
      expect(first).toMatchObject({
        created: true,
        plan: { id: "p", name: "One", budgetMicroUsd: 1_500_000 },
      });
      const second = await ctx.store.createPlan({ id: "p", name: "Two", budgetMicroUsd: 9_000_000 });
      expect(second).toMatchObject({ created: false, plan: { name: "One", budgetMicroUsd: 1_500_000 } });
      expect(await ctx.store.listEvents("p")).toEqual([]);
      expect(await ctx.store.getPlan("missing")).toBeUndefined();
    });

    it("lists plans by id with their tasks counted by status", async () => {
      await ctx.store.importPlan(plan("b", [task("X"), task("Y", { status: "FAILED" })]));
      await ctx.store.importPlan(plan("a", [task("X", { status: "DONE" })]));
      await ctx.store.createPlan({ id: "c", name: "empty" });
      const plans = await ctx.store.listPlans();
      expect(plans.map((p) => [p.id, p.taskCount, p.counts.PENDING, p.counts.DONE, p.counts.FAILED])).toEqual(
        [
          ["a", 1, 0, 1, 0],
          ["b", 2, 1, 0, 1],
          ["c", 0, 0, 0, 0],
        ],
      );
      expect(Object.keys(plans[2]?.counts ?? {})).toEqual([
        "PENDING",
        "CLAIMED",
        "IN_PROGRESS",
        "DONE",
        "FAILED",
        "SKIPPED",
      ]);
    });

    it("throws PlanNotFound for the tasks or blocked list of an unknown plan", async () => {
      expect(await caught(ctx.store.listTasks("nope"))).toBeInstanceOf(PlanNotFound);
      expect(await caught(ctx.store.listBlocked("nope"))).toBeInstanceOf(PlanNotFound);
    });
  });

  describe("plan identity", () => {
    it("keeps two plans with the same task ids independent", async () => {
      await ctx.store.importPlan(plan("one", [task("T-001"), task("T-002", { deps: ["T-001"] })]));
      await ctx.store.importPlan(plan("two", [task("T-001"), task("T-002", { deps: ["T-001"] })]));
      await runNext(ctx.store, "one", "w1", 1000);
      expect((await ctx.store.getTask("one", "T-001"))?.status).toBe("DONE");
      expect((await ctx.store.getTask("two", "T-001"))?.status).toBe("PENDING");
      expect(await claimAs(ctx.store, "two", "w2")).toMatchObject({ planId: "two", id: "T-001" });
      expect(await claimAs(ctx.store, "two", "w2")).toBeUndefined();
      expect(await claimAs(ctx.store, "one", "w1")).toMatchObject({ planId: "one", id: "T-002" });
      expect((await ctx.store.getPlan("two"))?.spentMicroUsd).toBe(0);
      expect(await eventTypes(ctx.store, "two")).toEqual(["task.created", "task.created", "CLAIM"]);
    });

    it("accepts plan ids with spaces and non-ASCII text everywhere", async () => {
      const id = "Проект «Ёлка» — plan 🚀 with  spaces";
      await ctx.store.importPlan(plan(id, [task("Задача 1"), task("Задача 2", { deps: ["Задача 1"] })]));
      const done = await runNext(ctx.store, id, "wörker ü", 42);
      expect(done).toMatchObject({ planId: id, id: "Задача 1", status: "DONE" });
      expect(await ctx.store.findClaimedPlans("wörker ü", "Задача 1")).toEqual([]);
      const next = await claimAs(ctx.store, id, "wörker ü");
      expect(next).toMatchObject({ planId: id, id: "Задача 2" });
      expect(await ctx.store.findClaimedPlans("wörker ü", "Задача 2")).toEqual([id]);
      expect((await ctx.store.listPlans()).map((p) => p.id)).toEqual([id]);
      expect((await ctx.store.getPlan(id))?.spentMicroUsd).toBe(42);
    });
  });

  describe("resetPlan", () => {
    it("keep_tasks: every task PENDING, claims and attempts cleared, counters recomputed, events kept", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] }), task("C")]));
      await runNext(ctx.store, "p", "w1", 250_000);
      const claimed = await claimAs(ctx.store, "p", "w1");
      expect(claimed?.id).toBe("B");
      const before = await ctx.store.listEvents("p");

      expect(await ctx.store.resetPlan("p", "keep_tasks")).toBe(3);

      const tasks = await ctx.store.listTasks("p");
      expect(tasks.map((t) => [t.id, t.status, t.attempts, t.claimedBy, t.leaseExpiresAt])).toEqual([
        ["A", "PENDING", 0, undefined, undefined],
        ["B", "PENDING", 0, undefined, undefined],
        ["C", "PENDING", 0, undefined, undefined],
      ]);
      const after = await ctx.store.listEvents("p");
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length).map((e) => [e.eventType, e.taskId, e.payload])).toEqual(
        tasks.map((t) => ["RESET", t.id, { reason: "manual_reset", mode: "keep_tasks", version: t.version }]),
      );
      // Spend stays: the money was spent.
      expect((await ctx.store.getPlan("p"))?.spentMicroUsd).toBe(250_000);
      // B waits for A again.
      expect((await ctx.store.listTasks("p")).find((t) => t.id === "B")?.version).toBe(
        (claimed?.version ?? 0) + 1,
      );
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "A" });
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "C" });
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("hard: deletes the plan with its tasks and events; other plans stay", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.importPlan(plan("q", [task("A")]));
      await claimAs(ctx.store, "p", "w1");
      expect(await ctx.store.resetPlan("p", "hard")).toBe(2);
      expect(await ctx.store.getPlan("p")).toBeUndefined();
      expect(await ctx.store.listEvents("p")).toEqual([]);
      expect(await caught(ctx.store.listTasks("p"))).toBeInstanceOf(PlanNotFound);
      expect(await ctx.store.listTasks("q")).toHaveLength(1);
      expect(await caught(ctx.store.resetPlan("p", "hard"))).toBeInstanceOf(PlanNotFound);
    });
  });
}
