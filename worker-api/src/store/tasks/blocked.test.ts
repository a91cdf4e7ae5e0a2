import type { TaskStatus } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { findBlocked } from "./blocked.js";

function blocked(statuses: Record<string, TaskStatus>, deps: Record<string, string[]>) {
  return findBlocked(new Map(Object.entries(statuses)), new Map(Object.entries(deps)));
}

describe("findBlocked", () => {
  it("reports a diamond's root blockers once each, through pending tasks only", () => {
    expect(
      blocked(
        { A: "FAILED", B: "SKIPPED", C: "PENDING", D: "PENDING", E: "PENDING", F: "DONE" },
        { C: ["A"], D: ["B", "F"], E: ["C", "D"] },
      ),
    ).toEqual([
      { taskId: "C", blockedBy: ["A"] },
      { taskId: "D", blockedBy: ["B"] },
      { taskId: "E", blockedBy: ["A", "B"] },
    ]);
  });

  it("does not count claimed, running or done dependencies, nor blocks non-pending tasks", () => {
    expect(
      blocked(
        { A: "CLAIMED", B: "IN_PROGRESS", C: "PENDING", X: "FAILED", Y: "CLAIMED" },
        { C: ["A", "B"], Y: ["X"] },
      ),
    ).toEqual([]);
  });

  it("terminates on a corrupt cyclic graph", () => {
    const result = blocked({ A: "PENDING", B: "PENDING", X: "FAILED" }, { A: ["B", "X"], B: ["A"] });
    expect(result).toContainEqual({ taskId: "A", blockedBy: ["X"] });
  });
});
