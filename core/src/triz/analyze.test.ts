import { describe, expect, it } from "vitest";
import { analyzePlanTriz } from "./analyze.js";
import { trizReportJson } from "./json.js";
import type { TrizTask } from "./types.js";

// Each plan below breaks exactly one rule; `task` makes a task that breaks none.
const task = (id: string, more: Partial<TrizTask> = {}): TrizTask => ({
  id,
  description: `Write the ${id} section of the user guide`,
  dependencies: [],
  keyFiles: [`docs/${id}.md`],
  acceptanceCriteria: [`docs/${id}.md exists`],
  testSteps: [`test -f docs/${id}.md`],
  ...more,
});
const only = (tasks: TrizTask[]) => analyzePlanTriz({ id: "p", tasks });

describe("analyzePlanTriz", () => {
  it("approves a clean plan with a score of 1", () => {
    const report = only([task("A"), task("B", { dependencies: ["A"] })]);
    expect(trizReportJson(report)).toEqual({
      plan_id: "p",
      task_count: 2,
      verdict: "approve",
      ideality_score: 1,
      findings: [],
      mergeable_groups: [],
      removable_tasks: [],
      summary: "No structural problems found.",
    });
  });

  it("weak_task_definition: high when the gate names the description, medium otherwise", () => {
    const report = only([task("A", { description: "short", testSteps: [] }), task("B", { testSteps: [] })]);
    expect(trizReportJson(report).findings).toEqual([
      {
        severity: "high",
        category: "weak_task_definition",
        task_ids: ["A"],
        title: "task fails the decision gate: description too short; missing test_steps",
        recommendation: expect.stringContaining("acceptance criteria and test steps"),
        triz_principle: 10,
      },
      expect.objectContaining({
        severity: "medium",
        task_ids: ["B"],
        title: "task fails the decision gate: missing test_steps",
      }),
    ]);
    expect(report.verdict).toBe("revise");
    expect(only([task("A", { description: "  " })]).findings[0]?.severity).toBe("high");
  });

  it("dependency_contradiction: a cycle is critical and rejects the plan", () => {
    const report = only([
      task("A", { dependencies: ["C"] }),
      task("B", { dependencies: ["A"] }),
      task("C", { dependencies: ["B"] }),
      task("D", { dependencies: ["D"] }),
    ]);
    expect(report.findings.map((f) => [f.category, f.severity, f.trizPrinciple, f.taskIds])).toEqual([
      ["dependency_contradiction", "critical", 2, ["A", "C", "B"]],
      ["dependency_contradiction", "critical", 2, ["D"]],
    ]);
    expect(report.findings[0]?.title).toBe("dependency cycle A → C → B → A: no order can run these tasks");
    expect(report.verdict).toBe("reject");
    // 1 − 2 × 4 / (3 × 4) = 0.333…
    expect(report.idealityScore).toBe(0.33);
    expect(report.summary).toBe("Blocking contradictions (2 critical): fix the plan before running it.");
  });

  it("missing_dependency_resource: one high finding per task naming ids not in the plan", () => {
    const report = only([task("A", { dependencies: ["X", "Y", "X"] }), task("B")]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        severity: "high",
        category: "missing_dependency_resource",
        taskIds: ["A"],
        title: "task depends on 'X', 'Y', not in the plan",
        trizPrinciple: 10,
      }),
    ]);
    expect(report.verdict).toBe("revise");
  });

  it("duplicate_work: the same normalised description; the later ids are removable", () => {
    const report = only([
      task("B", { description: "Add the Login page to the web app!" }),
      task("A", { description: "add the  login-page to the web app" }),
      task("C", { description: "Добавить страницу входа в приложение" }),
      task("D", { description: "добавить страницу, входа в приложение." }),
    ]);
    expect(report.findings.map((f) => [f.category, f.severity, f.trizPrinciple, f.taskIds])).toEqual([
      ["duplicate_work", "medium", 5, ["A", "B"]],
      ["duplicate_work", "medium", 5, ["C", "D"]],
    ]);
    expect(report.mergeableGroups).toEqual([
      ["A", "B"],
      ["C", "D"],
    ]);
    expect(report.removableTasks).toEqual(["B", "D"]);
  });

  it("resource_conflict: tasks sharing key files, one finding per group of tasks", () => {
    const report = only([
      task("A", { keyFiles: ["src/app.ts", "src/db.ts"] }),
      task("B", { keyFiles: [" src/app.ts", "src/db.ts"] }),
      task("C", { keyFiles: ["src/db.ts"] }),
    ]);
    expect(report.findings.map((f) => [f.category, f.severity, f.trizPrinciple, f.taskIds, f.title])).toEqual(
      [
        ["resource_conflict", "medium", 5, ["A", "B"], "2 tasks share key file 'src/app.ts'"],
        ["resource_conflict", "medium", 5, ["A", "B", "C"], "3 tasks share key file 'src/db.ts'"],
      ],
    );
    expect(report.mergeableGroups).toEqual([
      ["A", "B"],
      ["A", "B", "C"],
    ]);
    expect(report.removableTasks).toEqual([]);
  });

  it("over_engineering_risk: generality words with neither criteria nor test steps; low still approves", () => {
    const vague = { acceptanceCriteria: [], testSteps: [] };
    const report = only([
      task("A", { description: "Build a Pluggable storage framework", ...vague }),
      task("B", { description: "Build a pluggable storage layer", testSteps: [] }),
      task("C", { description: "Rename the storage module files", ...vague }),
    ]);
    const risks = report.findings.filter((f) => f.category === "over_engineering_risk");
    expect(risks).toEqual([
      expect.objectContaining({
        severity: "low",
        taskIds: ["A"],
        title: "task asks for 'framework', 'pluggable' with no acceptance criteria or test steps to bound it",
        trizPrinciple: 13,
      }),
    ]);
    const alone = only([task("A"), task("B", { description: "A generic, scalable cache", ...vague })]);
    // The gate's finding is medium, so only the low finding of a plan without it approves.
    expect(alone.verdict).toBe("revise");
    expect(alone.findings.map((f) => f.category)).toEqual(["weak_task_definition", "over_engineering_risk"]);
  });

  it("runs every rule on one plan, in rule order, and scores the sum", () => {
    const report = only([
      task("A", { description: "short", keyFiles: ["shared.ts"] }),
      task("B", {
        description: "Implement shared behaviour",
        dependencies: ["MISSING"],
        keyFiles: ["shared.ts"],
      }),
      task("C", { description: "Implement shared behaviour" }),
    ]);
    expect(report.findings.map((f) => f.category)).toEqual([
      "weak_task_definition",
      "missing_dependency_resource",
      "duplicate_work",
      "resource_conflict",
    ]);
    expect(report.verdict).toBe("revise");
    // 1 − (2 + 2 + 1 + 1) / 9
    expect(report.idealityScore).toBe(0.33);
    expect(report.mergeableGroups).toEqual([
      ["B", "C"],
      ["A", "B"],
    ]);
    expect(report.removableTasks).toEqual(["C"]);
  });
});
