import { join } from "node:path";
import { planSummaryPayloadSchema } from "@whilly/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  scratchDir,
  writePlanFile,
} from "../../../test/support/cli.js";

// What `whilly run` and the plan commands report: one JSON shape for money and counts, time and cost
// over the same attempts, and why a run stopped at --max-tasks.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** Every key of a JSON value, nested ones included. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

function setup(planId: string, tasks: Parameters<typeof writePlanFile>[2]) {
  const repo = makeRepo(template);
  writePlanFile(join(repo, "tasks.json"), planId, tasks);
  const log = join(scratchDir("whilly-agent-"), "agent.log");
  const cli = (argv: string[], script: Parameters<typeof fakeAgentEnv>[0]["script"] = {}) =>
    runCli(argv, { cwd: repo, env: fakeAgentEnv({ script, log }) });
  return { repo, cli };
}

describe("JSON reports", () => {
  it("give money as *_usd decimal strings and counts as task_count on every path, notes in full", async () => {
    const { repo, cli } = setup("money", [
      ["M-1", "high"],
      ["M-2", "low"],
    ]);
    expect((await cli(["plan", "create", "--id", "money", "--name", "Money", "--budget", "5"])).code).toBe(0);
    const message = `Could not do it: ${"the tests fail again. ".repeat(12)}`.trim();
    const run = await cli(["run", "tasks.json", "--json"], {
      "M-1": { outcome: "fail", cost: 0.0311, message },
    });
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.out);
    expect(summary).toMatchObject({ spent_usd: "0.043600", budget_usd: "5.000000" });
    expect(summary.tasks.map((t: { cost_usd: string }) => t.cost_usd)).toEqual(["0.031100", "0.012500"]);
    expect(summary.tasks[0].note).toBe(`is_error: the agent reported an error: ${message}`);
    // The human table shortens it, the JSON does not.
    const table = await cli(["run", "--plan", "money"]);
    expect(table.out).not.toContain(message);
    expect(table.out).toContain("is_error: the agent reported an error: Could not do it:");

    const list = JSON.parse((await cli(["plan", "list", "--json"])).out) as unknown[];
    expect(list).toHaveLength(1);
    // The read API's schema (GET /api/v1/plans), strictly: no other key.
    const plan = planSummaryPayloadSchema.strict().parse(list[0]);
    expect(plan).toMatchObject({ id: "money", task_count: 2, spent_usd: "0.043600", budget_usd: "5.000000" });

    const show = JSON.parse((await cli(["plan", "show", "money", "--json"])).out);
    expect(show.plan).toEqual({
      id: "money",
      name: "Money",
      budget_usd: "5.000000",
      spent_usd: "0.043600",
      task_count: 2,
      max_attempts: 1,
      setup: null,
      verify: [],
      agent: null,
      model: null,
      fallback_agents: [],
      github_issue_ref: null,
      origin: null,
    });
    expect(show.tasks.map((t: { id: string; cost_usd: string }) => [t.id, t.cost_usd])).toEqual([
      ["M-1", "0.031100"],
      ["M-2", "0.012500"],
    ]);

    expect(Array.isArray(show.tasks) && Array.isArray(summary.tasks)).toBe(true);
    // The audit log (served by the read API as it is stored) says money the same way.
    const events = await eventsOf(repo, "money");
    const money = events.flatMap((e) =>
      [e.payload, e.detail ?? {}].flatMap((fields) =>
        Object.entries(fields).filter(([key]) => /cost|spent|budget/.test(key)),
      ),
    );
    expect(money.length).toBeGreaterThanOrEqual(4);
    for (const [key, value] of money) {
      expect(key).toMatch(/_usd(_before)?$/);
      expect(value === null || /^\d+\.\d{6}$/.test(String(value))).toBe(true);
    }
    for (const json of [summary, list, show]) {
      const keys = keysOf(json);
      expect(keys.filter((k) => /micro|^tasks_count$/.test(k))).toEqual([]);
      expect(keys.filter((k) => /cost|spent|budget/.test(k) && !/(_usd|_exhausted)$/.test(k))).toEqual([]);
    }
  });

  it("count TIME over the same attempts as COST: a task that took two attempts shows both", async () => {
    const { repo, cli } = setup("twice", [["W-1", "high"]]);
    const first = await cli(["run", "tasks.json"], { "W-1": { outcome: "fail", cost: 0.02, sleep_ms: 300 } });
    expect(first.code).toBe(1);
    expect((await cli(["plan", "reset", "twice", "--failed", "--yes"])).code).toBe(0);
    const second = await cli(["run", "--plan", "twice", "--json"], { "W-1": { cost: 0.03, sleep_ms: 300 } });
    expect(second.code).toBe(0);
    const events = await eventsOf(repo, "twice");
    const walls = events
      .filter((e) => e.eventType === "FAIL" || e.eventType === "COMPLETE")
      .map((e) => Number(e.detail?.wall_ms));
    expect(walls).toHaveLength(2);
    const [task] = JSON.parse(second.out).tasks;
    expect(task).toMatchObject({ id: "W-1", status: "DONE", cost_usd: "0.050000" });
    expect(task.duration_ms).toBe((walls[0] ?? 0) + (walls[1] ?? 0));
  });
});

describe("whilly run --max-tasks", () => {
  it("says why it stopped and exits 0 when the tasks it ran are DONE", async () => {
    const { cli } = setup("limited", [
      ["L-1", "high"],
      ["L-2", "medium"],
      ["L-3", "low"],
    ]);
    const one = await cli(["run", "tasks.json", "--max-tasks", "1"]);
    expect(one.code).toBe(0);
    expect(one.err).toContain(
      "whilly run: stopped after 1 task(s) (--max-tasks 1); 2 task(s) left; run again to continue\n",
    );
    const two = await cli(["run", "--plan", "limited", "--max-tasks", "2", "--json"]);
    expect(two.code).toBe(0);
    // The limit was reached with nothing left: no notice.
    expect(two.err).not.toContain("--max-tasks");
    expect(JSON.parse(two.out)).toMatchObject({ ok: true, counts: { DONE: 3 } });
  });

  it("exits 1 when a task it ran failed, still saying why it stopped", async () => {
    const { cli } = setup("limited-fail", [
      ["X-1", "high"],
      ["X-2", "low"],
    ]);
    const result = await cli(["run", "tasks.json", "--max-tasks", "1"], { "X-1": { outcome: "fail" } });
    expect(result.code).toBe(1);
    expect(result.err).toContain("stopped after 1 task(s) (--max-tasks 1); 2 task(s) left;");
  });
});
