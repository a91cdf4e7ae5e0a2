import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type EventRecord, formatUsd, parseUsd } from "@whilly/core";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  ROOT,
  removeAll,
  runBin,
  runCli,
  scratchDir,
  withStore,
} from "../support/cli.js";

// The main job end to end: the built `whilly run` as a process, on the embedded store, driving the REAL
// Claude Code CLI (the pinned devDependency) against the project's scripted fake of the Anthropic
// Messages API (test/fixtures/scripts/demo.json). Every file in the repository is written by Claude
// Code's own tools; nothing here is real model work.
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");
const FAKE_KEY = "sk-ant-fake";

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({ scriptFile: join(FIXTURES, "scripts", "demo.json") }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

/** What this test reads of a task in a plan file. */
type PlanFileTask = { id: string; test_steps: string[] };

/** Runs `whilly run <plan file>` in a fresh repository with Claude Code pointed at the fake. */
async function runPlan(file: string) {
  const repo = makeRepo(template);
  copyFileSync(join(FIXTURES, "plans", file), join(repo, file));
  const env: Record<string, string> = {
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-") }),
    CLAUDE_BIN: CLAUDE,
    WHILLY_MODEL: "claude-sonnet-4-6",
  };
  expect(env.ANTHROPIC_API_KEY).toBe(FAKE_KEY);
  const result = await runBin(["run", file, "--task-timeout", "2m"], { cwd: repo, env });
  const plan = JSON.parse(readFileSync(join(repo, file), "utf8")) as { tasks: PlanFileTask[] };
  return { repo, result, tasks: plan.tasks };
}

/** Runs every test step of every task with bash in the repository; returns the ones that fail. */
function failingTestSteps(repo: string, tasks: readonly PlanFileTask[]): string[] {
  const failed: string[] = [];
  for (const task of tasks) {
    expect(task.test_steps.length).toBeGreaterThan(0);
    for (const step of task.test_steps) {
      try {
        execFileSync("bash", ["-c", step], { cwd: repo, stdio: "pipe" });
      } catch {
        failed.push(`${task.id}: ${step}`);
      }
    }
  }
  return failed;
}

/** Positions of events in the audit log (ids are increasing). */
function position(events: readonly EventRecord[], type: string, taskId: string): number {
  const index = events.findIndex((e) => e.eventType === type && e.taskId === taskId);
  expect(index, `${type} of ${taskId}`).toBeGreaterThanOrEqual(0);
  return index;
}

/** The checks every run of a plan must pass: events complete, costs summed exactly, no key stored. */
async function checkRecords(repo: string, planId: string, taskIds: readonly string[]) {
  const { plan, tasks, events } = await withStore(repo, async (store) => ({
    plan: await store.getPlan(planId),
    tasks: await store.listTasks(planId),
    events: await store.listEvents(planId, { limit: 100_000 }),
  }));
  expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual(taskIds.map((id) => [id, "DONE", 1]));

  let sum = 0;
  for (const id of taskIds) {
    const mine = events.filter((e) => e.taskId === id);
    expect(mine.map((e) => e.eventType)).toEqual(["task.created", "CLAIM", "START", "COMPLETE"]);
    const detail = mine[3]?.detail ?? {};
    for (const key of ["attempt", "cost_usd", "num_turns", "duration_ms", "session_id", "output_tail"])
      expect(detail, `${id} COMPLETE detail.${key}`).toHaveProperty(key);
    expect(detail.attempt).toBe(1);
    expect(detail.num_turns).toBeGreaterThan(0);
    expect(String(detail.output_tail)).toContain("<promise>COMPLETE</promise>");
    expect(Buffer.byteLength(String(detail.output_tail))).toBeLessThanOrEqual(4096);
    // The session the fake saw for this task is the one recorded.
    const sessions = new Set(
      fake
        .requests()
        .filter((r) => r.kind === "agent" && r.script === id)
        .map((r) => r.sessionId),
    );
    expect(sessions).toEqual(new Set([detail.session_id]));
    const micro = parseUsd(String(detail.cost_usd));
    expect(micro, `${id} cost_usd`).toBeGreaterThan(0);
    expect(tasks.find((t) => t.id === id)?.spentMicroUsd).toBe(micro);
    sum += micro ?? 0;
  }
  expect(plan?.spentMicroUsd).toBe(sum);
  expect(JSON.stringify(events)).not.toContain(FAKE_KEY);
  return { events, sum };
}

describe("whilly run with the real Claude Code CLI against the scripted model", () => {
  it("runs demo.tasks.json to all four tasks DONE, files written, dependencies respected, costs and events complete", async () => {
    const { repo, result, tasks } = await runPlan("demo.tasks.json");
    expect(result.err).not.toContain("error:");
    expect(result.code).toBe(0);
    for (const id of ["DEMO-001", "DEMO-002", "DEMO-003", "DEMO-004"])
      expect(result.out).toMatch(new RegExp(`^${id} +DONE +1/3 +\\$0\\.\\d+`, "m"));
    expect(result.out).toMatch(/\nplan 'demo': DONE=4 · spent \$0\.\d+ · agent time /);
    expect(result.out + result.err).not.toContain(FAKE_KEY);

    // The files are there, as the plan's own test steps check them.
    expect(failingTestSteps(repo, tasks)).toEqual([]);
    expect(readFileSync(join(repo, "DEMO-HELLO.md"), "utf8")).toBe("Hello from Whilly demo!\n");
    // Claude Code's tools ran without an error for every task.
    const toolResults = fake
      .requests()
      .filter((r) => r.kind === "agent" && r.script?.startsWith("DEMO-"))
      .flatMap((r) => r.toolResults ?? []);
    expect(toolResults.length).toBeGreaterThanOrEqual(8);
    expect(toolResults.filter((t) => t.isError)).toEqual([]);
    // Each task's work was committed in its worktree and merged; the user's branch was fast-forwarded
    // to it, so the tree holds every file and only the plan file (the user's own) is untracked.
    expect(result.out).toContain("your branch now holds the work of whilly/demo (fast-forwarded)");
    const status = execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" });
    expect(status.split("\n").filter(Boolean)).toEqual(["?? demo.tasks.json"]);
    const log = execFileSync("git", ["log", "--format=%s"], { cwd: repo, encoding: "utf8" });
    for (const id of ["DEMO-001", "DEMO-002", "DEMO-003", "DEMO-004"])
      expect(log).toContain(`whilly: ${id}: `);

    const ids = ["DEMO-001", "DEMO-002", "DEMO-003", "DEMO-004"];
    const { events, sum } = await checkRecords(repo, "demo", ids);
    expect(position(events, "CLAIM", "DEMO-003")).toBeGreaterThan(position(events, "COMPLETE", "DEMO-001"));
    for (const dep of ["DEMO-001", "DEMO-002"])
      expect(position(events, "CLAIM", "DEMO-004")).toBeGreaterThan(position(events, "COMPLETE", dep));
    const claims = events.filter((e) => e.eventType === "CLAIM").map((e) => e.taskId);
    expect(claims).toEqual(ids);

    // The CLI reads the same records: every task DONE, the spend the exact sum.
    const exported = await runCli(["plan", "export", "demo"], { cwd: repo });
    expect(JSON.parse(exported.out).tasks.map((t: { status: string }) => t.status)).toEqual([
      "DONE",
      "DONE",
      "DONE",
      "DONE",
    ]);
    expect(exported.out).not.toContain(FAKE_KEY);
    const list = await runCli(["plan", "list", "--json"], { cwd: repo });
    expect(JSON.parse(list.out)[0]).toMatchObject({
      id: "demo",
      spent_usd: formatUsd(sum),
      counts: { DONE: 4 },
    });
  }, 240_000);

  it("runs demo-parallel.tasks.json to both tasks DONE with their files", async () => {
    const { repo, result, tasks } = await runPlan("demo-parallel.tasks.json");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/\nplan 'parallel': DONE=2 · spent \$0\.\d+ · agent time /);
    expect(failingTestSteps(repo, tasks)).toEqual([]);
    expect(readFileSync(join(repo, "PAR-A.md"), "utf8")).toBe("A done\n");
    expect(readFileSync(join(repo, "PAR-B.md"), "utf8")).toBe("B done\n");
    await checkRecords(repo, "parallel", ["PAR-001", "PAR-002"]);
  }, 240_000);
});
