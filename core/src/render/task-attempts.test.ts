import { describe, expect, it } from "vitest";
import { renderPlanGraph } from "./plan-graph.js";
import { describeAttempts, describeFailure, describeRetry } from "./task-attempts.js";

const at = new Date("2026-12-01T23:10:00.250Z");
const failure = { attempt: 1, reason: "verification_failed", step: "npm test", exit_code: 1 };

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
});

describe("describeRetry", () => {
  it("shows a pending retry's not-before time in UTC and the last failure", () => {
    expect(describeRetry({ status: "PENDING", notBefore: at, lastFailure: failure })).toBe(
      "retry not before 2026-12-01T23:10:00Z · last failure (attempt 1): verification_failed, step 'npm test', exit 1",
    );
    // Once claimed again, the not-before time is history.
    expect(describeRetry({ status: "CLAIMED", notBefore: at })).toBeUndefined();
    expect(describeRetry({ status: "DONE", attempts: 1 })).toBeUndefined();
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
  it("shows attempts and unverified on the task's line and a failure's retry under its other lines", () => {
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
        {
          ...base,
          id: "E",
          status: "PENDING",
          attempts: 1,
          maxAttempts: 4,
          notBefore: at,
          lastFailure: failure,
        },
      ],
    });
    expect(text.split("\n").slice(2, 10)).toEqual([
      "[DONE       ] A  (high)  attempts 1/2  unverified",
      "[DONE       ] B  (high)  attempts 1/2",
      "[FAILED     ] C  (high)  attempts 2/2",
      "    ↻ last failure (attempt 2): merge_conflict",
      "[PENDING    ] E  (high)  attempts 1/4",
      "    ↻ retry not before 2026-12-01T23:10:00Z · last failure (attempt 1): verification_failed, step 'npm test', exit 1",
      "[PENDING    ] D  (high)",
      "    └─ depends on: C",
    ]);
    expect(text).toContain("[PENDING    ] D  (high)\n    └─ depends on: C\n    ⚠ blocked by FAILED C\n\n");
  });

  it("marks a DONE task unverified even when its attempts are not known", () => {
    const text = renderPlanGraph({
      planId: "p",
      name: "p",
      tasks: [{ id: "A", status: "DONE", priority: "low", dependencies: [], verification: "unverified" }],
    });
    expect(text).toContain("[DONE       ] A  (low)  unverified\n");
  });
});
