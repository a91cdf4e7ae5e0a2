import { describe, expect, it } from "vitest";
import type { Priority, TaskStatus } from "../task-status.js";
import { renderPlanGraph } from "./plan-graph.js";

const t = (id: string, status: TaskStatus, priority: Priority, dependencies: string[] = []) => ({
  id,
  status,
  priority,
  dependencies,
});

describe("renderPlanGraph", () => {
  it("draws the plan by depth then id, with dependencies, blockers and a summary", () => {
    const text = renderPlanGraph({
      planId: "demo",
      name: "Demo",
      tasks: [
        t("D-4", "PENDING", "low", ["D-1", "D-2"]),
        t("D-3", "PENDING", "medium", ["D-1"]),
        t("D-2", "DONE", "medium"),
        t("D-1", "FAILED", "high"),
        t("D-5", "PENDING", "low", ["D-4", "elsewhere"]),
      ],
    });
    expect(text).toBe(
      [
        "Plan: demo — Demo",
        "─".repeat(40),
        "[FAILED     ] D-1  (high)",
        "[DONE       ] D-2  (medium)",
        "[PENDING    ] D-3  (medium)",
        "    └─ depends on: D-1",
        "    ⚠ blocked by FAILED D-1",
        "[PENDING    ] D-4  (low)",
        "    └─ depends on: D-1, D-2",
        "    ⚠ blocked by FAILED D-1",
        "[PENDING    ] D-5  (low)",
        "    └─ depends on: D-4",
        "    ⚠ blocked by FAILED D-1",
        "",
        "Summary: 5 tasks · PENDING=3 · DONE=1 · FAILED=1",
        "",
      ].join("\n"),
    );
  });

  it("uses the blocked list it is given and colours only the badge", () => {
    const text = renderPlanGraph({
      planId: "p",
      name: "A plan whose title is longer than forty characters",
      tasks: [
        t("A", "SKIPPED", "high"),
        t("B", "IN_PROGRESS", "critical", ["A"]),
        t("C", "PENDING", "low", ["A"]),
      ],
      blocked: [{ taskId: "C", blockedBy: ["A"] }],
      color: (status, badge) => `<${status}>${badge}</>`,
    });
    const lines = text.split("\n");
    expect(lines[1]).toBe(
      "─".repeat([..."Plan: p — A plan whose title is longer than forty characters"].length),
    );
    expect(lines).toContain("<SKIPPED>[SKIPPED    ]</> A  (high)");
    expect(lines).toContain("<IN_PROGRESS>[IN_PROGRESS]</> B  (critical)");
    expect(lines).toContain("    ⚠ blocked by SKIPPED A");
    expect(lines.filter((line) => line.includes("blocked by"))).toHaveLength(1);
  });

  it("shows cycles above the title and lists their tasks last", () => {
    const text = renderPlanGraph({
      planId: "c",
      name: "c",
      tasks: [t("X", "PENDING", "high", ["Y"]), t("Y", "PENDING", "high", ["X"]), t("Z", "DONE", "low")],
    });
    const lines = text.split("\n");
    expect(lines.slice(0, 3)).toEqual(["Cycle detected: X → Y → X", "", "Plan: c — c"]);
    expect(lines[4]).toBe("[DONE       ] Z  (low)");
  });

  it("says what a ready task no online worker can run waits for", () => {
    const text = renderPlanGraph({
      planId: "p",
      name: "P",
      tasks: [t("A", "PENDING", "high"), t("B", "PENDING", "low")],
      waiting: [
        { taskId: "A", waitingFor: { agent: "codex", tags: ["gpu"] } },
        { taskId: "B", waitingFor: { tags: ["gpu", "macos"] } },
      ],
    });
    expect(text).toContain(
      "[PENDING    ] A  (high)\n    ⏳ waits for a worker with agent codex and tag gpu\n",
    );
    expect(text).toContain("[PENDING    ] B  (low)\n    ⏳ waits for a worker with tags gpu, macos\n");
  });

  it("summarises an empty plan", () => {
    expect(renderPlanGraph({ planId: "e", name: "e", tasks: [] }).trimEnd().split("\n").pop()).toBe(
      "Summary: 0 tasks",
    );
  });
});
