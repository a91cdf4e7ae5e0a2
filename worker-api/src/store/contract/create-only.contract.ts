import { describe, expect, it } from "vitest";
import { type ContractContext, eventTypes, plan, task } from "./helpers.contract.js";

const REF = "acme/widgets/7";

/** `importPlan(..., {createOnly})`: an intake's store, which must not touch a plan it did not make. */
export function describeCreateOnlyContract(ctx: ContractContext): void {
  describe("importPlan createOnly", () => {
    it("creates a new plan as import does, and leaves a stored one (same id or issue) untouched", async () => {
      const first = plan("issue-acme-widgets-7", [task("A")], { githubIssueRef: REF });
      expect((await ctx.store.importPlan(first, { createOnly: true })).planCreated).toBe(true);
      const other = plan("issue-acme-widgets-7", [task("A"), task("B")], { githubIssueRef: REF });
      const again = await ctx.store.importPlan(other, { createOnly: true, budgetMicroUsd: 5 });
      expect(again).toMatchObject({ planCreated: false, inserted: [], changed: [], unchanged: [] });
      expect(again.plan.budgetMicroUsd).toBeUndefined();
      expect((await ctx.store.listTasks("issue-acme-widgets-7")).map((t) => t.id)).toEqual(["A"]);
      expect(await eventTypes(ctx.store, "issue-acme-widgets-7")).toEqual(["plan.created", "task.created"]);
    });

    it("of two racing imports of one issue, one creates the plan and the other stores nothing", async () => {
      const one = plan("issue-acme-widgets-7", [task("A")], { githubIssueRef: REF });
      const two = plan("issue-acme-widgets-7", [task("X"), task("Y")], { githubIssueRef: REF });
      const results = await Promise.all([
        ctx.store.importPlan(one, { createOnly: true }),
        ctx.store.importPlan(two, { createOnly: true }),
      ]);
      expect(results.map((r) => r.planCreated).sort()).toEqual([false, true]);
      const winner = results[0]?.planCreated ? ["A"] : ["X", "Y"];
      expect((await ctx.store.listTasks("issue-acme-widgets-7")).map((t) => t.id)).toEqual(winner);
    });
  });
}
