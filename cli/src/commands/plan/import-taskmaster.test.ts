import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, makeRepo, makeStoreTemplate, removeAll, runCli } from "../../../../test/support/cli.js";

// `whilly plan import --from taskmaster` in-process, on the embedded store, with the Taskmaster fixtures.
const fixture = (name: string) => join(FIXTURES, "taskmaster", name);
const TASKS_JSON = ".taskmaster/tasks/tasks.json";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** A repository with `fixture` as its `.taskmaster/tasks/tasks.json`; its plan id derives from the directory. */
function taskmasterRepo(name: string): { repo: string; planId: string } {
  const repo = makeRepo(template);
  mkdirSync(join(repo, ".taskmaster", "tasks"), { recursive: true });
  cpSync(fixture(name), join(repo, TASKS_JSON));
  const planId = basename(repo)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-");
  return { repo, planId };
}

const warning = (status: string, to: string, tasks: string) =>
  `warning: ${TASKS_JSON}: Taskmaster status '${status}' imported as ${to} (${tasks}): `;

describe("whilly plan import --from taskmaster", () => {
  it("imports the master tag of a tagged file, idempotently; plan show and export give the converted plan", async () => {
    const { repo, planId } = taskmasterRepo("tagged.tasks.json");
    const first = await runCli(["plan", "import", "--from", "taskmaster", TASKS_JSON], { cwd: repo });
    expect(first.out).toBe(
      `imported plan '${planId}' (6 tasks: 6 new) from Taskmaster tag 'master'; the file's other tags (--tag NAME imports one): 'feature-export'.\n`,
    );
    const lines = first.err.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(warning("blocked", "PENDING", "task 2"));
    expect(lines[1]).toContain(warning("cancelled", "SKIPPED", "task 3"));
    expect(lines[2]).toContain(warning("review", "PENDING", "task 4"));
    expect(first.code).toBe(0);

    const again = await runCli(["plan", "import", "--from", "taskmaster", TASKS_JSON], { cwd: repo });
    expect(again).toMatchObject({ code: 0, err: first.err });
    expect(again.out).toMatch(
      /^imported plan '[^']+' \(6 tasks: 0 new, 6 already stored\) from Taskmaster tag/,
    );

    const show = await runCli(["plan", "show", planId], { cwd: repo });
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/\[DONE\s*\] 1 {2}\(critical\)/);
    expect(show.out).toMatch(/\[PENDING\s*\] 2\.2 {2}\(high\)\n\s+└─ depends on: 1, 2\.1\n/);
    expect(show.out).toMatch(/\[PENDING\s*\] 2 {2}\(high\)\n\s+└─ depends on: 1, 2\.1, 2\.2\n/);
    expect(show.out).toMatch(/\[SKIPPED\s*\] 3 {2}\(low\)\n\s+└─ depends on: 2\.2\n/);

    const exported = await runCli(["plan", "export", planId], { cwd: repo });
    expect(exported.code).toBe(0);
    const json = JSON.parse(exported.out);
    expect(json).toMatchObject({
      plan_id: planId,
      project: basename(repo),
      origin: { kind: "taskmaster", reference: `${TASKS_JSON}#master` },
      metadata: { description: "Tasks for master context" },
    });
    const tasks = new Map(json.tasks.map((t: { id: string }) => [t.id, t]));
    expect(tasks.get("2.2")).toMatchObject({
      parent_task: "2",
      title: "Route",
      dependencies: ["2.1", "1"],
      key_files: ["src/routes/login.ts"],
      relevantFiles: [{ path: "src/routes/login.ts", action: "create" }],
      description: "Route\n\nThe POST /login handler.\n\nPart of task 2: Login endpoint.",
    });
    expect(tasks.get("4")).toMatchObject({
      status: "PENDING",
      taskmaster_status: "review",
      tags: ["security"],
    });

    // The stored plan is a whilly plan: its export imports elsewhere as it is.
    const fresh = makeRepo(template);
    writeFileSync(join(fresh, "exported.json"), exported.out);
    expect((await runCli(["plan", "import", "exported.json"], { cwd: fresh })).code).toBe(0);
    expect((await runCli(["plan", "export", planId], { cwd: fresh })).out).toBe(exported.out);
  });

  it("imports another tag with --tag, saying in --json what it mapped", async () => {
    const { repo, planId } = taskmasterRepo("tagged.tasks.json");
    const argv = ["plan", "import", "--from", "taskmaster", TASKS_JSON, "--tag", "feature-export", "--json"];
    const result = await runCli(argv, { cwd: repo });
    expect(result.code).toBe(0);
    expect(result.err).toContain(warning("in-progress", "PENDING", "task 2"));
    expect(JSON.parse(result.out)).toEqual({
      plan_id: `${planId}-feature-export`,
      plan_created: true,
      inserted: ["1", "2"],
      unchanged: [],
      changed: [],
      demoted_to_pending: [],
      taskmaster: {
        tag: "feature-export",
        layout: "tagged",
        other_tags: ["master"],
        status_mappings: [{ from: "in-progress", to: "PENDING", task_ids: ["2"] }],
      },
    });
  });

  it("imports a legacy file under --plan-id, with its subtasks and statuses", async () => {
    const repo = makeRepo(template);
    const argv = [
      "plan",
      "import",
      "--from",
      "taskmaster",
      fixture("legacy.tasks.json"),
      "--plan-id",
      "notes",
    ];
    const result = await runCli(argv, { cwd: repo });
    expect(result.out).toBe("imported plan 'notes' (10 tasks: 10 new) from a legacy Taskmaster file.\n");
    expect(result.code).toBe(0);
    expect(result.err).toContain("Taskmaster status 'in-progress' imported as PENDING (tasks 2, 2.2): ");
    const list = await runCli(["plan", "list", "--json"], { cwd: repo });
    expect(JSON.parse(list.out)).toEqual([
      expect.objectContaining({
        id: "notes",
        name: "Notes API",
        task_count: 10,
        counts: expect.objectContaining({ DONE: 2, PENDING: 7, SKIPPED: 1 }),
      }),
    ]);
  });

  it("refuses a missing tag (naming the tags), a bad file (naming each field) and Taskmaster flags without --from", async () => {
    const { repo } = taskmasterRepo("tagged.tasks.json");
    const missing = await runCli(["plan", "import", "--from", "taskmaster", TASKS_JSON, "--tag", "nope"], {
      cwd: repo,
    });
    expect(missing).toEqual({
      code: 2,
      out: "",
      err: `error: ${TASKS_JSON} has no tag 'nope'; its tags: 'master', 'feature-export'\nhint: name one with --tag, e.g. --tag master\n`,
    });

    const bad = { master: { tasks: [{ id: 1, title: "A", status: "wip", dependencies: ["3.2"] }] } };
    writeFileSync(join(repo, "bad.json"), JSON.stringify(bad));
    const refused = await runCli(["plan", "import", "--from", "taskmaster", "bad.json"], { cwd: repo });
    expect(refused).toEqual({
      code: 1,
      out: "",
      err: [
        "error: bad.json: invalid plan (2 problems):",
        "  - master.tasks[0].status (task 1): 'status' must be one of pending, in-progress, done, review, blocked, deferred, cancelled; got 'wip'",
        "  - master.tasks[0].dependencies[0] (task 1): depends on '3.2', which is no task or subtask in tag 'master'; remove the reference or add the task (task-master fix-dependencies removes every reference to a missing task)",
        "hint: fix the fields named above; docs/taskmaster.md says how whilly reads each Taskmaster field",
        "",
      ].join("\n"),
    });

    for (const [flags, message] of [
      [["--tag", "master"], "--tag is for Taskmaster files only"],
      [["--plan-id", "x"], "--plan-id is for Taskmaster files only"],
      [["--from", "jira"], "--from must be whilly or taskmaster; got 'jira'"],
    ] as const) {
      const result = await runCli(["plan", "import", TASKS_JSON, ...flags], { cwd: repo });
      expect(result).toMatchObject({ code: 2, out: "" });
      expect(result.err).toMatch(
        new RegExp(`^error: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\nhint: `),
      );
    }
    // Nothing was stored by any of them.
    expect(JSON.parse((await runCli(["plan", "list", "--json"], { cwd: repo })).out)).toEqual([]);
  });
});
