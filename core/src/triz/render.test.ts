import { describe, expect, it } from "vitest";
import { analyzePlanTriz } from "./analyze.js";
import { renderTrizReport } from "./render.js";

const base = { dependencies: [], acceptanceCriteria: ["it works"], testSteps: ["npm test"] };

describe("renderTrizReport", () => {
  it("prints the verdict, score, findings by severity with ids and recommendation, and the groups", () => {
    const report = analyzePlanTriz({
      id: "shop",
      tasks: [
        { ...base, id: "A", description: "Add the checkout page", keyFiles: ["src/cart.ts"], testSteps: [] },
        { ...base, id: "B", description: "Add the checkout page", keyFiles: ["src/cart.ts"] },
      ],
    });
    const text = renderTrizReport(report, (tone, text) => `<${tone}>${text}`);
    expect(text).toBe(
      [
        "TRIZ preflight of plan 'shop' (2 tasks)",
        "verdict: <revise>REVISE   ideality: 0.50",
        "Runnable, but worth tightening (3 medium).",
        "",
        "<medium>MEDIUM (3)",
        "  weak_task_definition · task A · principle 10 (preliminary action)",
        "    task fails the decision gate: missing test_steps",
        "    recommendation: give the task a concrete description (at least 20 characters), acceptance criteria and test steps before an agent runs it",
        "  duplicate_work · tasks A, B · principle 5 (merging)",
        "    2 tasks have the same description",
        "    recommendation: merge them into one task, or rewrite their descriptions and acceptance criteria so each owns a distinct result",
        "  resource_conflict · tasks A, B · principle 5 (merging)",
        "    2 tasks share key file 'src/cart.ts'",
        "    recommendation: order them with explicit dependencies, or combine them into one task that owns the file",
        "",
        "mergeable groups: A + B",
        "removable tasks: B",
        "",
      ].join("\n"),
    );
  });

  it("prints a clean report in three lines", () => {
    const report = analyzePlanTriz({
      id: "p",
      tasks: [{ ...base, id: "A", description: "Write the quick start section", keyFiles: [] }],
    });
    expect(renderTrizReport(report)).toBe(
      "TRIZ preflight of plan 'p' (1 task)\nverdict: APPROVE   ideality: 1.00\nNo structural problems found.\n",
    );
  });
});
