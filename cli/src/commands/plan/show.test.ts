import { join } from "node:path";
import type { PlanRecord, TaskRecord } from "@whilly/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  withStore,
} from "../../../../test/support/cli.js";
import { planShowJson, planShowText } from "./show.js";

const CHECKS = join(FIXTURES, "plans", "checks.tasks.json");
const STEPS_NOT_RUN =
  "'test_steps' that read as instructions for a person in tasks 'CHK-2', 'CHK-3' and call whilly itself in task 'CHK-3' are not run by whilly's checks and count as manual; prefix manual steps with 'manual:' and write checks as shell commands";

const created = new Date("2026-12-01T22:00:00Z");
const planRecord = (more: Partial<PlanRecord> = {}): PlanRecord => ({
  id: "p",
  name: "P",
  budgetMicroUsd: undefined,
  spentMicroUsd: 0,
  agentInstructions: {},
  keptInstructions: {},
  extra: {},
  createdAt: created,
  ...more,
});
const taskRecord = (id: string, more: Partial<TaskRecord> = {}): TaskRecord => ({
  id,
  planId: "p",
  status: "PENDING",
  priority: "medium",
  description: id,
  dependencies: [],
  keyFiles: [],
  acceptanceCriteria: [],
  testSteps: [],
  prdRequirement: "",
  version: 0,
  extra: {},
  claimedBy: undefined,
  claimedAt: undefined,
  leaseExpiresAt: undefined,
  attempts: 0,
  spentMicroUsd: 0,
  createdAt: created,
  updatedAt: created,
  ...more,
});

// What the store records after retries (built here: the store's own tests cover how it gets there).
const notBefore = new Date("2026-12-01T23:10:00.500Z");
const failure = {
  attempt: 1,
  reason: "verification_failed",
  step: "npm test",
  exit_code: 1,
  output_tail: "1 failed",
};
const tasks = [
  taskRecord("A", { status: "DONE", attempts: 1, verification: "unverified" }),
  taskRecord("B", { status: "DONE", attempts: 2, verification: "passed", lastFailure: failure }),
  taskRecord("C", { status: "PENDING", attempts: 1, maxAttempts: 5, notBefore, lastFailure: failure }),
  taskRecord("D", {
    status: "FAILED",
    attempts: 2,
    lastFailure: { ...failure, attempt: 2, reason: "merge_conflict" },
  }),
  taskRecord("E", { dependencies: ["D"] }),
];
const blocked = [{ taskId: "E", blockedBy: ["D"] }];

describe("plan show of tasks with attempts", () => {
  it("marks unverified DONE tasks and shows attempts, a retry's not-before time and the last failure", () => {
    const text = planShowText(planRecord({ maxAttempts: 2 }), tasks, blocked);
    const retry = "last failure (attempt 1): verification_failed, step 'npm test', exit 1";
    expect(text).toContain("[DONE       ] A  (medium)  attempts 1/2  unverified\n[DONE");
    expect(text).toContain(`[DONE       ] B  (medium)  attempts 2/2\n    ↻ ${retry}\n`);
    expect(text).toContain(
      `[PENDING    ] C  (medium)  attempts 1/5\n    ↻ retry not before 2026-12-01T23:10:00Z · ${retry}\n`,
    );
    expect(text).toContain(
      "[FAILED     ] D  (medium)  attempts 2/2\n    ↻ last failure (attempt 2): merge_conflict, step",
    );
    expect(text).toContain("[PENDING    ] E  (medium)\n    └─ depends on: D\n    ⚠ blocked by FAILED D\n\n");
  });

  it("carries verification, max_attempts, not_before and last_failure in --json", () => {
    const json = planShowJson(planRecord({ verify: ["npm test"], setup: "npm ci" }), tasks, blocked);
    expect(json.plan).toMatchObject({ verify: ["npm test"], setup: "npm ci", max_attempts: null });
    expect(json.tasks.map((t) => [t.id, t.attempts, t.max_attempts, t.verification, t.not_before])).toEqual([
      ["A", 1, 3, "unverified", null],
      ["B", 2, 3, "passed", null],
      ["C", 1, 5, null, "2026-12-01T23:10:00.500Z"],
      ["D", 2, 3, null, null],
      ["E", 0, 3, null, null],
    ]);
    expect(json.tasks[2]?.last_failure).toEqual(failure);
    expect(json.tasks[4]?.last_failure).toBeNull();
  });
});

describe("plan show of DONE tasks' work", () => {
  const work = { branch: "whilly-tasks/p/a", commit: "0123456789abcdef0123456789abcdef01234567" };
  const done = [
    taskRecord("A", { status: "DONE", attempts: 1, work }),
    taskRecord("B", { dependencies: ["A"] }),
  ];

  it("shows the branch and the short commit under a task with work, nothing under one without", () => {
    const text = planShowText(planRecord(), done, []);
    expect(text).toContain(
      "[DONE       ] A  (medium)  attempts 1/3\n    ⎇ whilly-tasks/p/a @ 0123456\n[PENDING",
    );
    expect(text).toContain("[PENDING    ] B  (medium)\n    └─ depends on: A\n\n");
  });

  it("escapes control characters of a reported branch name", () => {
    const hostile = [taskRecord("A", { status: "DONE", work: { ...work, branch: "x\u001b[2Jy" } })];
    expect(planShowText(planRecord(), hostile, [])).not.toContain("\u001b");
  });

  it("carries branch and the full commit in --json, null without work", () => {
    const json = planShowJson(planRecord(), done, []);
    expect(json.tasks.map((t) => [t.id, t.branch, t.commit])).toEqual([
      ["A", work.branch, work.commit],
      ["B", null, null],
    ]);
  });
});

describe("whilly plan show", () => {
  let template: string;
  beforeAll(async () => {
    template = await makeStoreTemplate();
  });
  afterAll(removeAll);

  it("warns at import and at show of steps its checks will not run, once per plan, naming the tasks", async () => {
    const repo = makeRepo(template);
    const imported = await runCli(["plan", "import", CHECKS], { cwd: repo });
    expect(imported).toMatchObject({
      code: 0,
      err: `warning: ${CHECKS}: ${STEPS_NOT_RUN}
`,
    });

    const shown = await runCli(["plan", "show", "checks", "--no-color"], { cwd: repo });
    expect(shown.code).toBe(0);
    expect(shown.err).toBe(`warning: plan 'checks': ${STEPS_NOT_RUN}\n`);
    expect(shown.out).toContain("[PENDING    ] CHK-1  (high)\n");

    const json = await runCli(["plan", "show", "checks", "--json"], { cwd: repo });
    expect(json.err).toBe(`warning: plan 'checks': ${STEPS_NOT_RUN}\n`);
    const task = JSON.parse(json.out).tasks[0];
    expect(task).toMatchObject({
      id: "CHK-1",
      attempts: 0,
      verification: null,
      not_before: null,
      last_failure: null,
    });
  });

  it("shows a DONE task's branch and short commit as its worker reported them, and both in --json", async () => {
    const repo = makeRepo(template);
    expect((await runCli(["plan", "import", CHECKS], { cwd: repo })).code).toBe(0);
    const commit = "f".repeat(40);
    const doneId = await withStore(repo, async (store) => {
      await store.upsertWorker({ workerId: "w1", hostname: "h" });
      const claimed = await store.claim({ planId: "checks", workerId: "w1", leaseMs: 60_000, start: true });
      if (!claimed) throw new Error("nothing ready in checks");
      const fence = { planId: "checks", taskId: claimed.id, workerId: "w1", version: claimed.version };
      await store.complete({ ...fence, costMicroUsd: 0, work: { branch: "whilly-tasks/checks/x", commit } });
      return claimed.id;
    });
    const shown = await runCli(["plan", "show", "checks", "--no-color"], { cwd: repo });
    expect(shown.out).toMatch(
      new RegExp(`\\[DONE {7}\\] ${doneId} .*\n    ⎇ whilly-tasks/checks/x @ fffffff\n`),
    );
    const json = JSON.parse((await runCli(["plan", "show", "checks", "--json"], { cwd: repo })).out);
    const task = json.tasks.find((t: { id: string }) => t.id === doneId);
    expect(task).toMatchObject({ status: "DONE", branch: "whilly-tasks/checks/x", commit });
  });
});
