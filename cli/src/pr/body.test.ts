import type { PlanRecord, TaskRecord, TaskStatus } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { prText } from "./body.js";

const at = new Date("2026-12-01T00:00:00Z");
const plan: PlanRecord = {
  id: "p",
  name: "Shop | checkout",
  budgetMicroUsd: undefined,
  spentMicroUsd: 0,
  agentInstructions: {},
  keptInstructions: {},
  extra: {},
  createdAt: at,
};

function task(id: string, status: TaskStatus, dependencies: string[] = []): TaskRecord {
  const work = status === "DONE" ? { branch: `whilly-tasks/p/${id}`, commit: "ab".repeat(20) } : undefined;
  return {
    id,
    planId: "p",
    status,
    priority: "medium",
    description: id,
    dependencies,
    keyFiles: [],
    acceptanceCriteria: [],
    testSteps: [],
    prdRequirement: "",
    version: 0,
    extra: {},
    claimedBy: undefined,
    claimedAt: undefined,
    leaseExpiresAt: undefined,
    attempts: 2,
    spentMicroUsd: 1_500_000,
    work,
    createdAt: at,
    updatedAt: at,
    ...(status === "DONE" ? { verification: "passed" as const } : {}),
  };
}

describe("the pull request text", () => {
  it("lists DONE tasks in merge order, then the others, escaping table cells; closes the issue", () => {
    const tasks = [task("Z", "DONE"), task("B", "DONE", ["Z"]), task("A", "FAILED")];
    const { title, body } = prText({ plan, tasks, branch: "whilly/p", issue: { repo: "o/r", number: 4 } });
    expect(title).toBe("whilly: Shop | checkout (2 of 3 tasks)");
    const rows = body.split("\n").filter((line) => /^\| [A-Z] \|/.test(line));
    expect(rows).toEqual([
      `| Z | DONE | $1.50 | passed | ${"ab".repeat(6)} (\`whilly-tasks/p/Z\`) |`,
      `| B | DONE | $1.50 | passed | ${"ab".repeat(6)} (\`whilly-tasks/p/B\`) |`,
      "| A | FAILED | $1.50 | — | — |",
    ]);
    expect(body).toContain("Total cost: $4.50 over 6 attempts.\n\nCloses #4\n");
  });

  it("stays under GitHub's body limit for a plan of thousands of tasks, naming how many rows it left out", () => {
    const tasks = Array.from({ length: 2000 }, (_, i) => task(`T-${String(i).padStart(4, "0")}`, "DONE"));
    const { body } = prText({ plan, tasks, branch: "whilly/p", issue: undefined });
    expect(body.length).toBeLessThan(65_536);
    const left = /\| … \| (\d+) more tasks: `whilly plan show p` \|/.exec(body);
    expect(Number(left?.[1])).toBeGreaterThan(0);
    expect(body).toContain("all 2000 tasks DONE");
    expect(body).not.toContain("Closes");
  });
});
