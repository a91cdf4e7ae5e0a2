import { describe, expect, it } from "vitest";
import { renderPlanGraph } from "./plan-graph.js";
import { describeAttempts, describeFailure } from "./task-attempts.js";

const at = new Date("2026-12-01T23:10:00.250Z");

describe("describeAttempts", () => {
  it("says nothing of a task never attempted", () => {
    expect(describeAttempts({ status: "PENDING", attempts: 0 }, 5)).toBeUndefined();
    expect(describeAttempts({ status: "PENDING" }, undefined)).toBeUndefined();
  });

  it("shows attempts against the task's limit, else the plan's, else 3", () => {
    expect(describeAttempts({ status: "IN_PROGRESS", attempts: 1, maxAttempts: 7 }, 5)).toBe("attempts 1/7");
    expect(describeAttempts({ status: "IN_PROGRESS", attempts: 1 }, 5)).toBe("attempts 1/5");
    expect(describeAttempts({ status: "DONE", attempts: 2 }, undefined)).toBe("attempts 2/3");
  });

  it("shows a pending retry's not-before time in UTC and the last failure", () => {
    const lastFailure = { attempt: 1, reason: "verification_failed", step: "npm test", exit_code: 1 };
    expect(describeAttempts({ status: "PENDING", attempts: 1, notBefore: at, lastFailure }, undefined)).toBe(
      "attempts 1/3 · retry not before 2026-12-01T23:10:00Z · last failure (attempt 1): verification_failed, step 'npm test', exit 1",
    );
    // Once claimed again, the not-before time is history.
    expect(describeAttempts({ status: "CLAIMED", attempts: 1, notBefore: at }, undefined)).toBe(
      "attempts 1/3",
    );
  });

  it("shows a failure without step or exit code, and escapes stored text", () => {
    expect(describeFailure({ attempt: 3, reason: "stalled", exit_code: null })).toBe(
      "last failure (attempt 3): stalled",
    );
    expect(describeFailure({ attempt: 1, reason: "x", step: "echo a\n\u001b[2J" })).toBe(
      "last failure (attempt 1): x, step 'echo a\\n\\u001b[2J'",
    );
  });
});

describe("renderPlanGraph with attempts", () => {
  it("marks unverified DONE tasks and draws an attempts line under the task's other lines", () => {
    const base = { priority: "high" as const, dependencies: [] as string[] };
    const text = renderPlanGraph({
      planId: "p",
      name: "p",
      maxAttempts: 2,
      tasks: [
        { ...base, id: "A", status: "DONE", attempts: 1, verification: "unverified" },
        { ...base, id: "B", status: "DONE", attempts: 1, verification: "passed" },
        {
          ...base,
          id: "C",
          status: "FAILED",
          attempts: 2,
          lastFailure: { attempt: 2, reason: "merge_conflict" },
        },
        { ...base, id: "D", status: "PENDING", dependencies: ["C"] },
        { ...base, id: "E", status: "PENDING", attempts: 1, maxAttempts: 4, notBefore: at },
      ],
    });
    expect(text.split("\n").slice(2, 11)).toEqual([
      "[DONE       ] A  (high)  unverified",
      "    ↻ attempts 1/2",
      "[DONE       ] B  (high)",
      "    ↻ attempts 1/2",
      "[FAILED     ] C  (high)",
      "    ↻ attempts 2/2 · last failure (attempt 2): merge_conflict",
      "[PENDING    ] E  (high)",
      "    ↻ attempts 1/4 · retry not before 2026-12-01T23:10:00Z",
      "[PENDING    ] D  (high)",
    ]);
    expect(text).toContain("[PENDING    ] D  (high)\n    └─ depends on: C\n    ⚠ blocked by FAILED C\n\n");
  });
});
