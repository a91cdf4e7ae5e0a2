import { PlanNotFound } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, plan, task } from "./helpers.contract.js";

/** The audit log: every transition's event, in order, paged; plan-level and batched appends. */
export function describeEventContract(ctx: ContractContext): void {
  describe("events", () => {
    it("records every transition of a task in order, with the version each produced", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      const started = await ctx.store.start({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: claimed?.version ?? -1,
      });
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: started.version,
        costMicroUsd: 1_250_000,
        detail: { attempt: 1, reason: null, num_turns: 3, session_id: "s-1", output_tail: "done" },
      });
      const events = await ctx.store.listEvents("p");
      expect(events.map((e) => [e.eventType, e.taskId, e.payload, e.detail])).toEqual([
        ["task.created", "A", { priority: "medium", dependencies: [] }, undefined],
        ["CLAIM", "A", { worker_id: "w1", version: 1 }, { agent: "claude" }],
        ["START", "A", { version: 2 }, undefined],
        [
          "COMPLETE",
          "A",
          { version: 3, worker_id: "w1", cost_usd: "1.250000" },
          { attempt: 1, reason: null, num_turns: 3, session_id: "s-1", output_tail: "done" },
        ],
      ]);
      const ids = events.map((e) => e.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(events.every((e) => e.planId === "p" && e.createdAt instanceof Date)).toBe(true);
    });

    it("pages with afterId and limit", async () => {
      await ctx.store.importPlan(
        plan(
          "p",
          ["A", "B", "C", "D", "E"].map((id) => task(id)),
        ),
      );
      const all = await ctx.store.listEvents("p");
      const first = await ctx.store.listEvents("p", { limit: 2 });
      const rest = await ctx.store.listEvents("p", { afterId: first.at(-1)?.id ?? 0 });
      expect([...first, ...rest]).toEqual(all);
      expect(first).toHaveLength(2);
    });

    it("appends plan-level events and refuses an unknown plan", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await ctx.store.appendEvent({
        planId: "p",
        eventType: "plan.applied",
        payload: { tasks_count: 1, skipped_count: 0, warned_count: 0, strict: false },
      });
      const last = (await ctx.store.listEvents("p")).at(-1);
      expect(last).toMatchObject({ eventType: "plan.applied", taskId: undefined, detail: undefined });
      expect(
        await caught(ctx.store.appendEvent({ planId: "nope", eventType: "x", payload: {} })),
      ).toBeInstanceOf(PlanNotFound);
    });

    it("appendEvents skips repeated idempotency keys and events of deleted plans", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const batch = [
        {
          planId: "p",
          taskId: "A",
          eventType: "agent.output",
          payload: { n: 1 },
          idempotencyKey: "flush-1:0",
        },
        { planId: "gone", eventType: "agent.output", payload: { n: 2 }, idempotencyKey: "flush-1:1" },
        { planId: "p", eventType: "metrics", payload: { n: 3 }, idempotencyKey: "flush-1:2" },
      ];
      expect(await ctx.store.appendEvents(batch)).toBe(2);
      expect(await ctx.store.appendEvents(batch)).toBe(0);
      const appended = (await ctx.store.listEvents("p")).filter((e) => e.eventType !== "task.created");
      expect(appended.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    });

    it("lists one task's latest events, oldest first, of the types asked for", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      for (const n of [1, 2, 3]) {
        await ctx.store.appendEvent({ planId: "p", taskId: "A", eventType: "agent.output", payload: { n } });
      }
      await ctx.store.appendEvent({ planId: "p", taskId: "B", eventType: "agent.output", payload: { n: 9 } });
      const all = await ctx.store.listTaskEvents("p", "A", { limit: 100 });
      expect(all.map((e) => e.eventType)).toEqual([
        "task.created",
        "agent.output",
        "agent.output",
        "agent.output",
      ]);
      expect(all.every((e) => e.taskId === "A")).toBe(true);
      const lastTwo = await ctx.store.listTaskEvents("p", "A", { limit: 2 });
      expect(lastTwo.map((e) => e.payload)).toEqual([{ n: 2 }, { n: 3 }]);
      const created = await ctx.store.listTaskEvents("p", "A", { limit: 10, eventTypes: ["task.created"] });
      expect(created.map((e) => e.eventType)).toEqual(["task.created"]);
      expect(await ctx.store.listTaskEvents("p", "A", { limit: 10, eventTypes: [] })).toEqual([]);
      expect(await ctx.store.listTaskEvents("p", "Z", { limit: 10 })).toEqual([]);
      expect(await ctx.store.listTaskEvents("nope", "A", { limit: 10 })).toEqual([]);
    });
  });
}
