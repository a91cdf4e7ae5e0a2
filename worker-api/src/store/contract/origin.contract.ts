import { PlanConflict, type PlanOrigin } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, eventTypes, plan, task } from "./helpers.contract.js";

const REF = "acme/widgets/42";
const ORIGIN: PlanOrigin = {
  kind: "github_issue",
  reference: REF,
  url: "https://github.com/acme/widgets/issues/42",
  title: "Add a widget",
};

/** A plan made from an issue, as forge intake stores it. */
function fromIssue(id: string, options: { ref?: string; tasks?: string[] } = {}) {
  const tasks = (options.tasks ?? ["A", "B"]).map((t, i, all) =>
    task(t, { deps: i > 0 ? [all[0] ?? ""] : [] }),
  );
  return plan(id, tasks, {
    githubIssueRef: options.ref ?? REF,
    origin: { ...ORIGIN, reference: options.ref ?? REF },
    extra: { prd_file: "docs/PRD-widgets.md" },
  });
}

/** `github_issue_ref` and `origin`: stored, read back, one plan per issue, `plan.created`. */
export function describeOriginContract(ctx: ContractContext): void {
  describe("plan origin and GitHub issue", () => {
    it("stores the issue and origin, finds the plan by its issue, and writes plan.created with the rows", async () => {
      const result = await ctx.store.importPlan(fromIssue("issue-acme-widgets-42"));
      expect(result.planCreated).toBe(true);
      expect(result.plan).toMatchObject({ githubIssueRef: REF, origin: ORIGIN });
      expect(await ctx.store.getPlan("issue-acme-widgets-42")).toMatchObject({
        githubIssueRef: REF,
        origin: ORIGIN,
      });
      expect((await ctx.store.findPlanByIssueRef(REF))?.id).toBe("issue-acme-widgets-42");
      expect(await ctx.store.findPlanByIssueRef("acme/widgets/43")).toBeUndefined();
      const events = await ctx.store.listEvents("issue-acme-widgets-42");
      expect(events.map((e) => [e.eventType, e.taskId ?? null])).toEqual([
        ["plan.created", null],
        ["task.created", "A"],
        ["task.created", "B"],
      ]);
      expect(events[0]?.payload).toEqual({
        github_issue_ref: REF,
        name: "Plan issue-acme-widgets-42",
        tasks_count: 2,
        prd_file: "docs/PRD-widgets.md",
        origin: ORIGIN,
      });
    });

    it("writes plan.created for an origin without an issue, and none for a plan with neither", async () => {
      await ctx.store.importPlan(
        plan("idea", [task("A")], { origin: { kind: "idea", reference: "add-dark-mode" } }),
      );
      expect(await eventTypes(ctx.store, "idea")).toEqual(["plan.created", "task.created"]);
      expect((await ctx.store.getPlan("idea"))?.origin).toEqual({ kind: "idea", reference: "add-dark-mode" });
      expect((await ctx.store.getPlan("idea"))?.githubIssueRef).toBeUndefined();
      await ctx.store.importPlan(plan("plain", [task("A")]));
      expect(await eventTypes(ctx.store, "plain")).toEqual(["task.created"]);
      expect((await ctx.store.getPlan("plain"))?.origin).toBeUndefined();
    });

    it("answers a second import of the issue's plan as for an existing id: nothing changes, no event", async () => {
      await ctx.store.importPlan(fromIssue("issue-acme-widgets-42"));
      const before = await ctx.store.listEvents("issue-acme-widgets-42");
      const again = await ctx.store.importPlan(fromIssue("issue-acme-widgets-42"));
      expect(again).toMatchObject({
        planCreated: false,
        inserted: [],
        unchanged: ["A", "B"],
        changed: [],
        planChanged: [],
      });
      expect(await ctx.store.listEvents("issue-acme-widgets-42")).toEqual(before);
    });

    it("refuses another plan id for an issue that has a plan, storing nothing", async () => {
      await ctx.store.importPlan(fromIssue("first"));
      const error = await caught(ctx.store.importPlan(fromIssue("second")));
      expect(error).toBeInstanceOf(PlanConflict);
      expect(error).toMatchObject({ planId: "second", existingPlanId: "first", githubIssueRef: REF });
      expect((error as Error).message).toContain("already belongs to plan 'first'");
      expect(await ctx.store.getPlan("second")).toBeUndefined();
      // Also when the other id is itself stored already: the issue stays with its plan.
      await ctx.store.importPlan(plan("third", [task("A")]));
      expect(await caught(ctx.store.importPlan(fromIssue("third")))).toBeInstanceOf(PlanConflict);
      expect((await ctx.store.getPlan("third"))?.githubIssueRef).toBeUndefined();
    });

    it("stores one plan when two imports of one issue race, and the other gets the same answer", async () => {
      const results = await Promise.all([
        ctx.store.importPlan(fromIssue("issue-acme-widgets-42")),
        ctx.store.importPlan(fromIssue("issue-acme-widgets-42")),
      ]);
      expect(results.map((r) => r.planCreated).sort()).toEqual([false, true]);
      expect(await eventTypes(ctx.store, "issue-acme-widgets-42")).toEqual([
        "plan.created",
        "task.created",
        "task.created",
      ]);
      const racing = await Promise.allSettled([
        ctx.store.importPlan(fromIssue("x-one", { ref: "acme/widgets/7" })),
        ctx.store.importPlan(fromIssue("x-two", { ref: "acme/widgets/7" })),
      ]);
      expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = racing.find((r) => r.status === "rejected");
      expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(PlanConflict);
      expect((await ctx.store.listPlans()).filter((p) => p.githubIssueRef === "acme/widgets/7")).toHaveLength(
        1,
      );
    });

    it("reports a stored plan's other issue or origin as plan changes and keeps its own", async () => {
      await ctx.store.importPlan(fromIssue("p", { ref: "acme/widgets/1" }));
      const result = await ctx.store.importPlan(fromIssue("p", { ref: "acme/widgets/2" }));
      expect(result.planChanged).toEqual(["github_issue_ref", "origin"]);
      expect((await ctx.store.getPlan("p"))?.githubIssueRef).toBe("acme/widgets/1");
      expect(await ctx.store.findPlanByIssueRef("acme/widgets/2")).toBeUndefined();
    });

    it("gives a plan made by createPlan the file's issue and origin", async () => {
      await ctx.store.createPlan({ id: "p", name: "Created", budgetMicroUsd: 1_000_000 });
      const result = await ctx.store.importPlan(fromIssue("p"));
      expect(result.planCreated).toBe(false);
      expect(result.plan).toMatchObject({ budgetMicroUsd: 1_000_000, githubIssueRef: REF, origin: ORIGIN });
      expect((await ctx.store.findPlanByIssueRef(REF))?.id).toBe("p");
    });
  });
}
