import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, makeRepo, makeStoreTemplate, removeAll, runCli } from "../../../../test/support/cli.js";

// `whilly plan import | export | show | list` in-process, on the embedded store, with the fixture plans.
const plans = join(FIXTURES, "plans");
const invalid = join(plans, "invalid");
const V41_ID = "Whilly v4.1 — Out-of-scope items from v4.0 release";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

const plan = (name: string) => join(plans, name);

describe("whilly plan import", () => {
  it("imports every fixture plan, normalising statuses, and import is idempotent", async () => {
    const repo = makeRepo(template);
    const files = readdirSync(plans).filter((f) => f.endsWith(".json"));
    expect(files.sort()).toEqual([
      "checks.tasks.json",
      "demo-parallel.tasks.json",
      "demo-ru.tasks.json",
      "demo.tasks.json",
      "instructions-in-the-wild.tasks.json",
      "v4-1.tasks.json",
      "workshop.tasks.json",
    ]);
    const expected: Record<string, [string, number]> = {
      "checks.tasks.json": ["checks", 3],
      "demo-parallel.tasks.json": ["parallel", 2],
      "demo-ru.tasks.json": ["demo-ru", 4],
      "demo.tasks.json": ["demo", 4],
      "instructions-in-the-wild.tasks.json": ["shop-checkout", 2],
      "v4-1.tasks.json": [V41_ID, 31],
      "workshop.tasks.json": ["workshop-track-a", 5],
    };
    for (const file of files) {
      const [id, count] = expected[file] ?? ["?", 0];
      const result = await runCli(["plan", "import", plan(file)], { cwd: repo });
      expect(result).toMatchObject({
        code: 0,
        out: `imported plan '${id}' (${count} tasks: ${count} new).\n`,
      });
      // The others warn of their agent_instructions or of test steps that are not commands.
      if (file.startsWith("demo") || file.startsWith("workshop")) expect(result.err).toBe("");
    }

    const again = await runCli(["plan", "import", plan("v4-1.tasks.json"), "--json"], { cwd: repo });
    expect(again.code).toBe(0);
    // One line for the plan's prose steps and calls to whilly; nothing about the import itself.
    expect(again.err).toMatch(/^warning: [^\n]*v4-1\.tasks\.json: 'test_steps' that [^\n]*\n$/);
    const json = JSON.parse(again.out);
    expect(json).toMatchObject({ plan_id: V41_ID, plan_created: false, inserted: [], changed: [] });
    expect(json.unchanged).toHaveLength(31);

    const list = await runCli(["plan", "list", "--json"], { cwd: repo });
    expect(list.code).toBe(0);
    expect(list.err).toBe("");
    const stored = JSON.parse(list.out) as {
      id: string;
      task_count: number;
      counts: Record<string, number>;
    }[];
    expect(stored.map((p) => [p.id, p.task_count]).sort()).toEqual(Object.values(expected).sort());
    // The v4-1 file says "done" for 15 tasks and "pending" for the rest.
    expect(stored.find((p) => p.id === V41_ID)?.counts).toMatchObject({ DONE: 15, PENDING: 16 });
  });

  it("takes a plan id with spaces and non-ASCII text; export → import elsewhere → export is byte-identical", async () => {
    const repo = makeRepo(template);
    expect((await runCli(["plan", "import", plan("v4-1.tasks.json")], { cwd: repo })).code).toBe(0);

    const show = await runCli(["plan", "show", V41_ID], { cwd: repo });
    expect(show.code).toBe(0);
    expect(show.err).toMatch(
      /^warning: plan 'Whilly v4\.1 .*'TASK-107', 'TASK-110', 'TASK-111' and call whilly itself in tasks 'TASK-103'.*'manual:'.*\n$/,
    );
    expect(show.out).toContain(`Plan: ${V41_ID}`);
    expect(show.out).toMatch(/\[DONE\s*\] TASK-103 {2}\(high\)/);
    expect(show.out).toMatch(/\[PENDING\s*\] TASK-111 {2}\(medium\)\n\s+└─ depends on: TASK-101/);

    const exported = await runCli(["plan", "export", V41_ID], { cwd: repo });
    expect(exported.code).toBe(0);
    expect(exported.err).toBe(`exported plan '${V41_ID}' (31 tasks).\n`);
    const text = exported.out;
    const json = JSON.parse(text);
    expect(json.plan_id).toBe(V41_ID);
    expect(json.project).toBe(V41_ID);
    expect(json.prd_file).toBe("docs/v4.0-release-checklist.md");
    const byId = new Map(json.tasks.map((t: { id: string }) => [t.id, t]));
    expect(byId.get("TASK-103")).toMatchObject({ status: "DONE", priority: "high", version: 0 });
    // Extra task fields of the file are kept.
    expect(byId.get("TASK-101")).toMatchObject({ title: "Per-worker bearer rotation", category: "feat" });
    // Canonical: keys sorted, tasks by id, two-space indentation, non-ASCII as is, a final newline.
    expect(Object.keys(json)).toEqual([...Object.keys(json)].sort());
    const taskIds = json.tasks.map((t: { id: string }) => t.id);
    expect(taskIds).toEqual([...taskIds].sort());
    expect(text).toBe(`${JSON.stringify(json, null, 2)}\n`);

    const fresh = makeRepo(template);
    writeFileSync(join(fresh, "exported.json"), text);
    expect((await runCli(["plan", "import", "exported.json"], { cwd: fresh })).code).toBe(0);
    const again = await runCli(["plan", "export", V41_ID], { cwd: fresh });
    expect(again.code).toBe(0);
    expect(again.out).toBe(text);
  });

  it("warns when a re-imported file's project, instructions or other plan fields differ, keeping the stored plan", async () => {
    const repo = makeRepo(template);
    const original = { ...JSON.parse(readFileSync(plan("workshop.tasks.json"), "utf8")), plan_id: "ws" };
    writeFileSync(join(repo, "tasks.json"), JSON.stringify(original));
    expect((await runCli(["plan", "import", "tasks.json"], { cwd: repo })).code).toBe(0);
    const same = await runCli(["plan", "import", "tasks.json"], { cwd: repo });
    expect(same.err).toBe("");

    const edited = {
      ...original,
      project: "Renamed",
      agent_instructions: { before: ["Be brief."] },
      owner: "x",
    };
    writeFileSync(join(repo, "tasks.json"), JSON.stringify(edited));
    const result = await runCli(["plan", "import", "tasks.json"], { cwd: repo });
    expect(result.code).toBe(0);
    expect(result.err).toBe(
      "warning: plan 'ws' is already stored and the file's project, agent_instructions, other plan fields differ; the stored plan's were kept (whilly plan reset 'ws' --hard --yes, then import again, to replace them)\n",
    );
    const shown = JSON.parse((await runCli(["plan", "list", "--json"], { cwd: repo })).out);
    expect(shown[0].name).toBe(original.project);
  });

  it("imports agent_instructions in the shapes real plans use, warns of values it cannot use, exports them all", async () => {
    const repo = makeRepo(template);
    const file = plan("instructions-in-the-wild.tasks.json");
    const result = await runCli(["plan", "import", file], { cwd: repo });
    expect(result.code).toBe(0);
    const kept = "is kept in the plan (export writes it back) but left out of agent prompts";
    expect(result.err).toBe(
      `warning: ${file}: 'agent_instructions'.max_retries is 3, not a list of strings: it ${kept}\n` +
        `warning: ${file}: 'agent_instructions'.reviewer is an object, not a list of strings: it ${kept}\n`,
    );
    const exported = await runCli(["plan", "export", "shop-checkout"], { cwd: repo });
    expect(exported.code).toBe(0);
    const original = JSON.parse(readFileSync(file, "utf8")).agent_instructions;
    expect(JSON.parse(exported.out).agent_instructions).toEqual({ ...original, style: [original.style] });
    const again = await runCli(["plan", "import", file], { cwd: repo });
    expect(again.err).not.toContain("differ");
  });

  it("reads relative paths from the working directory", async () => {
    const repo = makeRepo(template);
    writeFileSync(join(repo, "tasks.json"), readFileSync(plan("demo.tasks.json")));
    const result = await runCli(["plan", "import", "tasks.json"], { cwd: repo });
    expect(result).toEqual({ code: 0, out: "imported plan 'demo' (4 tasks: 4 new).\n", err: "" });
  });
});

describe("whilly plan import of an invalid plan", () => {
  it("names the field and the task, prints cycles as paths, exits 1 and stores nothing", async () => {
    const repo = makeRepo(template);
    const run = (file: string) => runCli(["plan", "import", join(invalid, file)], { cwd: repo });

    const bad = await run("bad-fields.tasks.json");
    expect(bad.code).toBe(1);
    expect(bad.out).toBe("");
    expect(bad.err).toBe(
      [
        `error: ${join(invalid, "bad-fields.tasks.json")}: invalid plan (5 problems):`,
        "  - task 'T-2' (tasks[1]): 'status' must be one of PENDING, CLAIMED, IN_PROGRESS, DONE, FAILED, SKIPPED; got 'started'",
        "  - task 'T-2' (tasks[1]): 'priority' must be one of critical, high, medium, low; got 'urgent'",
        "  - task 'T-2' (tasks[1]): 'description' must be a string; got 42",
        "  - task 'T-2' (tasks[1]): 'version' must be a non-negative integer; got -1",
        "  - task 'T-1' (tasks[2]): duplicate task id; tasks[0] has the same id",
        "hint: fix the fields named above; docs/plan-format.md describes every field",
        "",
      ].join("\n"),
    );

    const cycle = await run("cycle.tasks.json");
    expect(cycle.code).toBe(1);
    expect(cycle.out).toBe("");
    // A depends on C, C on B, B on A: each cycle is printed as the path along the dependencies.
    expect(cycle.err).toContain("  - Cycle detected: A → C → B → A\n");
    expect(cycle.err).toContain("  - Cycle detected: D → D\n");
    expect(cycle.err).toContain("invalid plan (2 problems)");

    const unknown = await run("unknown-dependency.tasks.json");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("  - task 'A' depends on 'Z', which is not in the plan\n");

    const json = await run("invalid-json.tasks.txt");
    expect(json.code).toBe(1);
    expect(json.err).toContain("invalid JSON at line 4, column 17");

    for (const result of [bad, cycle, unknown, json]) {
      expect(result.err.startsWith("error: ")).toBe(true);
      expect(result.err).not.toMatch(/\n\s+at /); // no stack trace
    }
    const list = await runCli(["plan", "list", "--json"], { cwd: repo });
    expect(list).toEqual({ code: 0, out: "[]\n", err: "" });
  });

  it("rejects text Postgres cannot store (NUL, lone surrogate) with the task and field named", async () => {
    const repo = makeRepo(template);
    const file = join(repo, "nul.tasks.json");
    writeFileSync(
      file,
      '{"project":"nul","tasks":[{"id":"N-1","status":"pending","priority":"low","description":"a\\u0000b"},' +
        '{"id":"N-2","status":"pending","priority":"low","description":"x\\ud800y"}]}',
    );
    const result = await runCli(["plan", "import", file], { cwd: repo });
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toMatch(/task 'N-1'.*'description'/);
    expect(result.err).toMatch(/task 'N-2'.*'description'/);
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).toBe("[]\n");
  });

  it("exits 1 for a missing file without creating a store", async () => {
    const repo = makeRepo();
    const result = await runCli(["plan", "import", "no-such.tasks.json"], { cwd: repo });
    expect(result).toEqual({
      code: 1,
      out: "",
      err:
        "error: cannot read plan file 'no-such.tasks.json': no such file or directory (ENOENT)\n" +
        "hint: check the path; a relative one is taken from the current directory\n",
    });
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });
});
