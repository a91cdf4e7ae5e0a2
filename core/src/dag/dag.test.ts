import { describe, expect, it } from "vitest";
import type { Priority, TaskStatus } from "../task-status.js";
import { compareIds } from "./compare.js";
import { detectCycles, formatCycle } from "./cycles.js";
import { topologicalDepth } from "./depth.js";
import { blockedTasks, readyTasks } from "./readiness.js";

const t = (
  id: string,
  dependencies: string[] = [],
  status: TaskStatus = "PENDING",
  priority: Priority = "medium",
) => ({
  id,
  dependencies,
  status,
  priority,
});

describe("detectCycles", () => {
  it("finds nothing in a DAG and ignores ids outside the plan", () => {
    expect(detectCycles([t("A"), t("B", ["A", "Z"]), t("C", ["A", "B"])])).toEqual([]);
  });

  it("reports a cycle as a closed path along 'depends on' edges, from its smallest id", () => {
    expect(detectCycles([t("C", ["B"]), t("B", ["A"]), t("A", ["C"])])).toEqual([["A", "C", "B", "A"]]);
  });

  it("reports self-loops and separate cycles in id order", () => {
    expect(detectCycles([t("X", ["Y"]), t("Y", ["X"]), t("B", ["B"]), t("Q", ["B"])])).toEqual([
      ["B", "B"],
      ["X", "Y", "X"],
    ]);
  });

  it("walks through every task of a tangle of cycles", () => {
    const [walk] = detectCycles([t("A", ["B", "C"]), t("B", ["A"]), t("C", ["A"])]);
    expect(walk).toEqual(["A", "B", "A", "C", "A"]);
  });

  it("handles a cycle of 50,000 tasks without overflowing the stack", () => {
    const n = 50_000;
    const tasks = Array.from({ length: n }, (_, i) => t(`T${i}`, [`T${(i + 1) % n}`]));
    const [walk] = detectCycles(tasks);
    expect(walk).toHaveLength(n + 1);
    expect(walk?.[0]).toBe("T0");
  });
});

describe("formatCycle", () => {
  it("joins with arrows and closes an open path", () => {
    expect(formatCycle(["A", "B", "C", "A"])).toBe("A → B → C → A");
    expect(formatCycle(["A", "B"])).toBe("A → B → A");
    expect(formatCycle(["A", "A"])).toBe("A → A");
    expect(formatCycle(["A"])).toBe("A → A");
  });
});

describe("topologicalDepth", () => {
  it("is the longest chain below each task", () => {
    const depth = topologicalDepth([t("A"), t("B", ["A"]), t("C", ["A", "B"]), t("D"), t("E", ["Z"])]);
    expect(Object.fromEntries(depth)).toEqual({ A: 0, B: 1, C: 2, D: 0, E: 0 });
  });

  it("puts tasks on or behind a cycle after the deepest other task", () => {
    const depth = topologicalDepth([t("A"), t("B", ["A"]), t("X", ["Y"]), t("Y", ["X"]), t("W", ["X"])]);
    expect(Object.fromEntries(depth)).toEqual({ A: 0, B: 1, X: 2, Y: 2, W: 2 });
  });
});

describe("readyTasks", () => {
  it("returns PENDING tasks whose dependencies are all DONE, by priority then id", () => {
    const tasks = [
      t("A", [], "DONE"),
      t("B", ["A"], "PENDING", "low"),
      t("C", ["A"], "PENDING", "critical"),
      t("D", ["B"]),
      t("E", [], "CLAIMED"),
      t("F", [], "PENDING", "low"),
      t("G", ["Z"]),
    ];
    expect(readyTasks(tasks).map((task) => task.id)).toEqual(["C", "B", "F"]);
  });
});

describe("blockedTasks", () => {
  it("names the failed or skipped roots, through chains of blocked tasks", () => {
    const tasks = [
      t("F1", [], "FAILED"),
      t("S1", [], "SKIPPED"),
      t("A", ["F1"]),
      t("B", ["A", "S1"]),
      t("C", ["B"]),
      t("R", [], "IN_PROGRESS"),
      t("D", ["R"]),
      t("E", ["F1"], "DONE"),
      t("G", ["E"]),
    ];
    expect(blockedTasks(tasks)).toEqual([
      { taskId: "A", blockedBy: ["F1"] },
      { taskId: "B", blockedBy: ["F1", "S1"] },
      { taskId: "C", blockedBy: ["F1", "S1"] },
    ]);
  });
});

describe("compareIds", () => {
  it("orders by code point", () => {
    expect(["b", "😀", "\uff5e", "a", "ab"].sort(compareIds)).toEqual(["a", "ab", "b", "\uff5e", "😀"]);
  });
});
