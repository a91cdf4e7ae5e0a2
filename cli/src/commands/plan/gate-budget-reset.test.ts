import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  withStore,
} from "../../../../test/support/cli.js";

// `whilly plan apply | create | reset` in-process on the embedded store, with what they leave in the store.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** G-1 passes the decision gate; G-2 misses everything; G-3 has no test steps. */
function gatePlan(repo: string): string {
  const file = join(repo, "gate.tasks.json");
  const task = (id: string, fields: object) => ({ id, status: "pending", priority: "medium", ...fields });
  writeFileSync(
    file,
    JSON.stringify({
      project: "gate",
      tasks: [
        task("G-1", {
          description: "Write the parser for the config file format",
          acceptance_criteria: ["parses every sample"],
          test_steps: ["npm test"],
        }),
        task("G-2", { description: "short" }),
        task("G-3", {
          description: "A long enough description of the task",
          acceptance_criteria: ["works"],
          dependencies: ["G-1"],
        }),
      ],
    }),
  );
  return file;
}

const G2_WARNING =
  "warning: decision_gate task='G-2' missing=[acceptance_criteria, test_steps] too_short=[description] reason='decision gate refused: description too short (5 characters, at least 20); missing acceptance_criteria, test_steps'\n";
const G3_WARNING =
  "warning: decision_gate task='G-3' missing=[test_steps] reason='decision gate refused: missing test_steps'\n";

describe("whilly plan apply", () => {
  it("warns about gate rejects, --strict skips them once, and every apply writes one plan.applied", async () => {
    const repo = makeRepo(template);
    const file = gatePlan(repo);

    const warn = await runCli(["plan", "apply", file], { cwd: repo });
    expect(warn).toEqual({
      code: 0,
      out: "applied plan 'gate' (3 tasks: 3 new). 2 task(s) failed the decision gate (see warnings above).\n",
      err: G2_WARNING + G3_WARNING,
    });

    const strict = await runCli(["plan", "apply", file, "--strict", "--json"], { cwd: repo });
    expect(strict.code).toBe(0);
    expect(JSON.parse(strict.out)).toEqual({
      plan_id: "gate",
      plan_created: false,
      inserted: [],
      unchanged: ["G-1", "G-2", "G-3"],
      changed: [],
      demoted_to_pending: [],
      skipped: ["G-2", "G-3"],
      warned: [],
      strict: true,
    });

    const rerun = await runCli(["plan", "apply", file, "--strict"], { cwd: repo });
    expect(rerun.code).toBe(0);
    expect(rerun.out).toBe("applied plan 'gate' (3 tasks: 0 new, 3 already stored).\n");

    const show = await runCli(["plan", "show", "gate", "--json"], { cwd: repo });
    const statuses = JSON.parse(show.out).tasks.map((t: { id: string; status: string }) => [t.id, t.status]);
    expect(statuses).toEqual([
      ["G-1", "PENDING"],
      ["G-2", "SKIPPED"],
      ["G-3", "SKIPPED"],
    ]);

    const events = await eventsOf(repo, "gate");
    const skipped = events.filter((e) => e.eventType === "task.skipped");
    expect(skipped.map((e) => e.taskId)).toEqual(["G-2", "G-3"]);
    expect(skipped[0]?.payload).toMatchObject({
      reason: "decision_gate_failed",
      missing: ["acceptance_criteria", "test_steps"],
      too_short: ["description"],
    });
    expect(skipped[1]?.payload).toMatchObject({ reason: "decision_gate_failed", missing: ["test_steps"] });
    expect(skipped[1]?.payload).not.toHaveProperty("too_short");
    const applied = events.filter((e) => e.eventType === "plan.applied");
    expect(applied.map((e) => e.payload)).toEqual([
      { tasks_count: 3, skipped_count: 0, warned_count: 2, strict: false },
      { tasks_count: 3, skipped_count: 2, warned_count: 0, strict: true },
      { tasks_count: 3, skipped_count: 0, warned_count: 0, strict: true },
    ]);
    expect(applied.every((e) => e.taskId === undefined)).toBe(true);
  });
});

describe("whilly plan create", () => {
  it("refuses a bad --budget with exit 1 naming the flag, and stores nothing", async () => {
    const repo = makeRepo(template);
    for (const bad of ["abc", "-1", "NaN", "Infinity", "1e3"]) {
      const result = await runCli(["plan", "create", "--id", "b", "--name", "B", "--budget", bad], {
        cwd: repo,
      });
      expect(result).toEqual({
        code: 1,
        out: "",
        err: `error: --budget must be a non-negative amount in USD, e.g. 5.00; got '${bad}'\nhint: a plain non-negative decimal number, without $ or exponent: 5, 5.00 or 0.25\n`,
      });
    }
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).toBe("[]\n");
  });

  it("refuses an --id a plan file could not hold, with exit 1 naming the flag, and stores nothing", async () => {
    const repo = makeRepo(template);
    const cases: [string, string][] = [
      ["", "must not be empty or blank"],
      ["cc\u001b[31m", "must not contain control characters"],
      ["a\tb", "must not contain control characters"],
      ["x".repeat(300), "must be at most 256 characters long"],
      ["..", "must not be '.' or '..'"],
      [" padded", "must not start or end with whitespace"],
    ];
    for (const [id, reason] of cases) {
      const result = await runCli(["plan", "create", "--id", id, "--name", "N"], { cwd: repo });
      expect(result.code).toBe(1);
      expect(result.out).toBe("");
      expect(result.err).toContain(`error: --id ${reason}`);
    }
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).toBe("[]\n");
  });

  it("creates a plan with a budget, and warns (exit 0) for an id that exists", async () => {
    const repo = makeRepo(template);
    const create = (budget: string) =>
      runCli(["plan", "create", "--id", "capped plan", "--name", "Capped", "--budget", budget], {
        cwd: repo,
      });
    expect(await create("5.25")).toEqual({
      code: 0,
      out: "created plan 'capped plan' ('Capped', budget $5.25).\n",
      err: "",
    });
    expect(await create("9")).toEqual({
      code: 0,
      out: "",
      err: "warning: plan 'capped plan' already exists; nothing changed (--budget not applied)\n",
    });
    const list = JSON.parse((await runCli(["plan", "list", "--json"], { cwd: repo })).out);
    expect(list).toEqual([
      {
        id: "capped plan",
        name: "Capped",
        github_issue_ref: null,
        created_at: expect.any(String),
        task_count: 0,
        counts: { PENDING: 0, CLAIMED: 0, IN_PROGRESS: 0, DONE: 0, FAILED: 0, SKIPPED: 0 },
        budget_usd: "5.250000",
        spent_usd: "0.000000",
      },
    ]);
    // `plan show --json` names its units as `plan list --json` does.
    const show = JSON.parse((await runCli(["plan", "show", "capped plan", "--json"], { cwd: repo })).out);
    expect(show.plan).toEqual({
      id: "capped plan",
      name: "Capped",
      budget_usd: "5.250000",
      spent_usd: "0.000000",
      task_count: 0,
      verify: [],
      setup: null,
      max_attempts: null,
      agent: null,
      model: null,
      fallback_agents: [],
      github_issue_ref: null,
      origin: null,
    });
  });
});

describe("whilly plan reset", () => {
  it("--keep-tasks --yes puts every task back to PENDING with a RESET event each; --hard --yes deletes", async () => {
    const repo = makeRepo(template);
    const v41 = join(FIXTURES, "plans", "v4-1.tasks.json");
    const id = "Whilly v4.1 — Out-of-scope items from v4.0 release";
    expect((await runCli(["plan", "import", v41], { cwd: repo })).code).toBe(0);

    const keep = await runCli(["plan", "reset", id, "--keep-tasks", "--yes"], { cwd: repo });
    expect(keep).toEqual({ code: 0, out: `reset plan '${id}' (31 tasks).\n`, err: "" });
    const { tasks, events } = await withStore(repo, async (store) => ({
      tasks: await store.listTasks(id),
      events: await store.listEvents(id, { limit: 10_000 }),
    }));
    expect(tasks.map((t) => t.status)).toEqual(Array(31).fill("PENDING"));
    expect(events.filter((e) => e.eventType === "RESET")).toHaveLength(31);
    // The audit log is kept.
    expect(events.filter((e) => e.eventType === "task.created")).toHaveLength(31);

    const hard = await runCli(["plan", "reset", id, "--hard", "--yes"], { cwd: repo });
    expect(hard).toEqual({ code: 0, out: `deleted plan '${id}' (31 tasks).\n`, err: "" });
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).toBe("[]\n");
  });

  it("without --yes asks on a terminal, and without a terminal refuses with exit 2, changing nothing", async () => {
    const repo = makeRepo(template);
    expect(
      (await runCli(["plan", "import", join(FIXTURES, "plans", "demo.tasks.json")], { cwd: repo })).code,
    ).toBe(0);
    const noTty = await runCli(["plan", "reset", "demo", "--hard"], { cwd: repo });
    expect(noTty.code).toBe(2);
    expect(noTty.out).toBe("");
    expect(noTty.err).toMatch(/^error: not a terminal: pass --yes to reset without asking\n/);

    const questions: string[] = [];
    const no = await runCli(["plan", "reset", "demo", "--hard"], {
      cwd: repo,
      confirm: async (q) => {
        questions.push(q);
        return false;
      },
    });
    expect(no).toEqual({ code: 0, out: "", err: "aborted; nothing changed.\n" });
    expect(questions).toEqual(["DELETE plan 'demo' (demo): 4 task(s), mode=hard. Continue? [y/N] "]);
    expect((await runCli(["plan", "show", "demo"], { cwd: repo })).code).toBe(0);

    const neither = await runCli(["plan", "reset", "demo", "--yes"], { cwd: repo });
    expect(neither.code).toBe(2);
    expect(neither.err).toContain("error: choose exactly one of --keep-tasks, --failed and --hard\n");

    const yes = await runCli(["plan", "reset", "demo", "--hard"], { cwd: repo, confirm: async () => true });
    expect(yes).toEqual({ code: 0, out: "deleted plan 'demo' (4 tasks).\n", err: "" });
  });
});
