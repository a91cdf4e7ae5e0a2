import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentStep,
  eventsOf,
  fakeAgentEnv,
  hasAnsi,
  makeRepo,
  makeStoreTemplate,
  processGone,
  readAgentLog,
  removeAll,
  runCli,
  scratchDir,
  type TaskLine,
  withStore,
  writePlanFile,
} from "../../../test/support/cli.js";

// `whilly run` in-process on the embedded store, with a fake Claude Code (test/fixtures/fake-agents/by-task.mjs)
// whose result depends on the task in its prompt: real child processes, real store, real control plane.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** A repository with the store, a plan file `tasks.json`, and the fake agent's environment. */
function setup(
  planId: string,
  tasks: TaskLine[],
  script: Record<string, AgentStep> = {},
  testSteps?: readonly string[],
) {
  const repo = makeRepo(template);
  const log = join(scratchDir("whilly-agent-"), "agent.log");
  writePlanFile(join(repo, "tasks.json"), planId, tasks, { testSteps });
  const env = fakeAgentEnv({ script, log });
  const run = (...argv: string[]) => runCli(["run", ...argv], { cwd: repo, env });
  const ran = () => readAgentLog(log).map((e) => e.task);
  return { repo, env, log, run, ran };
}

/** The summary table's row of a task, split on runs of spaces. */
function row(out: string, id: string): string[] {
  const line = out.split("\n").find((l) => l.startsWith(`${id} `));
  return line?.trim().split(/ {2,}/) ?? [];
}

describe("whilly run with a fake agent", () => {
  it("runs ready tasks by priority then id, each only after its dependencies, and exits 0", async () => {
    const { repo, run, ran } = setup("order", [
      ["T-A", "low"],
      ["T-B", "critical", ["T-C"]],
      ["T-C", "medium"],
      ["T-D", "high"],
      ["T-E", "high"],
    ]);
    const result = await run("tasks.json");
    expect(result.code).toBe(0);
    // T-B is critical but waits for T-C; T-D and T-E tie on priority and go by id.
    expect(ran()).toEqual(["T-D", "T-E", "T-C", "T-B", "T-A"]);

    expect(result.err).toContain("whilly run: plan 'order', 5 task(s), 5 to do; worker local-");
    expect(result.err).toMatch(/\[0\/5\] ▶ T-D \(high\) attempt 1\n\[1\/5\] ✓ T-D DONE in \S+ · \$0\.0125\n/);
    expect(result.err).toContain("[5/5] ✓ T-A DONE in ");
    expect(result.out.split("\n")[0]?.split(/\s+/)).toEqual([
      "TASK",
      "STATUS",
      "ATTEMPTS",
      "COST",
      "TIME",
      "NOTE",
    ]);
    for (const id of ["T-A", "T-B", "T-C", "T-D", "T-E"])
      expect(row(result.out, id).slice(0, 4)).toEqual([id, "DONE", "1/1", "$0.0125"]);
    expect(result.out).toMatch(/\nplan 'order': DONE=5 · spent \$0\.0625 · agent time \S+\n$/);
    expect(hasAnsi(result.out + result.err)).toBe(false);

    const events = await eventsOf(repo, "order");
    const claims = events.filter((e) => e.eventType === "CLAIM").map((e) => e.taskId);
    expect(claims).toEqual(["T-D", "T-E", "T-C", "T-B", "T-A"]);
    const at = (type: string, task: string) =>
      events.findIndex((e) => e.eventType === type && e.taskId === task);
    expect(at("CLAIM", "T-B")).toBeGreaterThan(at("COMPLETE", "T-C"));
    // Each DONE task's work is reported on complete: its task branch and that branch's commit.
    for (const done of events.filter((e) => e.eventType === "COMPLETE")) {
      const { branch, commit } = done.payload as { branch?: string; commit?: string };
      expect(branch).toMatch(/^whilly-tasks\/order\//);
      expect(commit).toBe(
        execFileSync("git", ["rev-parse", `refs/heads/${branch}`], { cwd: repo })
          .toString()
          .trim(),
      );
    }
  });

  it("leaves the dependents of a failed task PENDING, reports them blocked, counts the failed attempt's cost, exits 1", async () => {
    const { repo, run, ran } = setup(
      "fails",
      [
        ["F-1", "high"],
        ["F-2", "high", ["F-1"]],
        ["F-3", "high", ["F-2"]],
        ["F-4", "low"],
      ],
      { "F-1": { outcome: "fail", cost: 0.0311 } },
      // No check whilly can run: the agent's word decides, as here its failure.
      ["manual: read the result"],
    );
    // One attempt each: the retries have their own tests.
    const result = await run("tasks.json", "--max-attempts", "1");
    expect(result.code).toBe(1);
    expect(ran()).toEqual(["F-1", "F-4"]);
    expect(result.err).toMatch(/✗ F-1 FAILED \(is_error\) in \S+ · \$0\.0311\n/);
    expect(row(result.out, "F-1")).toEqual([
      "F-1",
      "FAILED",
      "1/1",
      "$0.0311",
      expect.any(String),
      "is_error: the agent reported an error: Could not do F-1: the tests fail.",
    ]);
    expect(result.err).toContain("the agent reported an error: Could not do F-1: the tests fail.");
    expect(result.out).toContain("whilly plan reset 'fails' --failed --yes");
    expect(row(result.out, "F-2")).toEqual(["F-2", "PENDING", "0/1", "$0.00", "-", "blocked by F-1"]);
    expect(row(result.out, "F-3")[1]).toBe("PENDING");
    expect(row(result.out, "F-3")[5]).toMatch(/^blocked by F-/);
    expect(row(result.out, "F-4").slice(0, 4)).toEqual(["F-4", "DONE", "1/1", "$0.0125"]);
    expect(result.out).toContain("plan 'fails': PENDING=2 · DONE=1 · FAILED=1 · spent $0.0436 ·");

    const { plan, events } = await withStore(repo, async (store) => ({
      plan: await store.getPlan("fails"),
      events: await store.listEvents("fails"),
    }));
    expect(plan?.spentMicroUsd).toBe(43_600);
    const fail = events.find((e) => e.eventType === "FAIL");
    expect(fail?.taskId).toBe("F-1");
    expect(fail?.detail).toMatchObject({ attempt: 1, reason: "is_error", cost_usd: "0.031100" });
  });

  it("kills a task's whole process group at --task-timeout and fails it with reason timeout", async () => {
    const { repo, run, log } = setup("slow", [["H-1", "high"]], { "H-1": { outcome: "hang" } }, [
      "manual: read the result",
    ]);
    const result = await run("tasks.json", "--task-timeout", "1s", "--max-attempts", "1");
    expect(result.code).toBe(1);
    expect(row(result.out, "H-1")).toEqual([
      "H-1",
      "FAILED",
      "1/1",
      "$0.00",
      expect.any(String),
      "timeout: the agent ran out of time and was killed",
    ]);
    const [agent] = readAgentLog(log);
    expect(agent?.grandchild).toBeGreaterThan(0);
    expect(processGone(agent?.pid ?? 0)).toBe(true);
    expect(processGone(agent?.grandchild ?? 0)).toBe(true);
    const fail = (await eventsOf(repo, "slow")).find((e) => e.eventType === "FAIL");
    expect(fail?.payload).toMatchObject({ reason: "timeout" });
  });

  it("stops claiming when spend plus the next attempt's reservation would pass the budget", async () => {
    const { repo, run, ran, env } = setup("capped", [
      ["B-1", "high"],
      ["B-2", "medium"],
      ["B-3", "low"],
    ]);
    const create = await runCli(
      ["plan", "create", "--id", "capped", "--name", "Capped", "--budget", "0.02"],
      {
        cwd: repo,
        env,
      },
    );
    expect(create.code).toBe(0);

    const first = await run("tasks.json");
    expect(first.code).toBe(1);
    // B-1 cost 0.0125, so each claim reserves 0.0125: 0.0125 + 0.0125 > 0.02 stops B-2 (docs/claim.md).
    expect(ran()).toEqual(["B-1"]);
    expect(first.err).toContain("whilly run: added 3 new task(s) from the file\n");
    expect(row(first.out, "B-2").slice(0, 2)).toEqual(["B-2", "PENDING"]);
    expect(first.out).toContain("spent $0.0125 of $0.02 budget");
    expect(first.out).toContain(
      "budget exhausted: $0.0075 is left, less than the next claim reserves (the plan's reserve_usd, else its largest recent attempt cost: docs/claim.md); raise the budget or set a smaller reserve: whilly plan budget 'capped' <USD|none> [--reserve USD]\n",
    );

    const second = await run("--plan", "capped");
    expect(second.code).toBe(1);
    expect(ran()).toEqual(["B-1"]);
    const events = await eventsOf(repo, "capped");
    // The reservation kept spend under the budget, so it was never crossed.
    expect(events.filter((e) => e.eventType === "plan.budget_exceeded")).toEqual([]);

    const raise = await runCli(["plan", "budget", "capped", "1"], { cwd: repo, env });
    expect(raise).toEqual({
      code: 0,
      out: "plan 'capped' budget: $0.02 → $1.00 (spent $0.0125).\n",
      err: "",
    });
    const third = await run("--plan", "capped");
    expect(third.code).toBe(0);
    expect(ran()).toEqual(["B-1", "B-2", "B-3"]);
  });

  it("runs a stored plan with --plan, --max-tasks and --json, and a finished plan again runs nothing", async () => {
    const { repo, run, ran, env } = setup("stored", [
      ["S-1", "high"],
      ["S-2", "low"],
    ]);
    expect((await runCli(["plan", "import", "tasks.json"], { cwd: repo, env })).code).toBe(0);

    const one = await run("--plan", "stored", "--max-tasks", "1", "--json");
    expect(one.code).toBe(0);
    expect(ran()).toEqual(["S-1"]);
    const summary = JSON.parse(one.out);
    expect(summary).toMatchObject({
      plan_id: "stored",
      ok: false,
      counts: { DONE: 1, PENDING: 1 },
      spent_usd: "0.012500",
      budget_usd: null,
      budget_exhausted: false,
    });
    expect(summary.tasks[0]).toMatchObject({
      id: "S-1",
      status: "DONE",
      attempts: 1,
      cost_usd: "0.012500",
      note: "",
    });
    expect(summary.tasks[0].duration_ms).toBeGreaterThan(0);
    expect(summary.tasks[1]).toMatchObject({ id: "S-2", status: "PENDING", attempts: 0 });

    const rest = await run("--plan", "stored", "--json");
    expect(rest.code).toBe(0);
    expect(JSON.parse(rest.out)).toMatchObject({
      ok: true,
      counts: { DONE: 2, PENDING: 0 },
      spent_usd: "0.025000",
    });
    expect(ran()).toEqual(["S-1", "S-2"]);

    for (const argv of [["--plan", "stored"], ["tasks.json"]]) {
      const again = await run(...argv);
      expect(again.code).toBe(0);
      expect(again.err).toContain("whilly run: plan 'stored', 2 task(s), 0 to do;");
      expect(again.out).toContain("plan 'stored': DONE=2 · spent $0.025 ·");
    }
    expect(ran()).toEqual(["S-1", "S-2"]);
  });
});
