// biome-ignore lint/style/noRestrictedImports: tests read the Taskmaster fixtures from disk.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InvalidInput, PlanInvalid } from "../errors.js";
import type { TaskSpec } from "../model.js";
import { convertTaskmaster, parseTaskmasterFile, type TaskmasterOptions } from "./index.js";

const FIXTURES = new URL("../../../test/fixtures/taskmaster/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), "utf8");
const legacy = (options: Partial<TaskmasterOptions> = {}) =>
  parseTaskmasterFile(fixture("legacy.tasks.json"), { source: "tasks.json", ...options });
const tagged = (options: Partial<TaskmasterOptions> = {}) =>
  parseTaskmasterFile(fixture("tagged.tasks.json"), {
    source: "tasks.json",
    projectName: "shop",
    ...options,
  });
const byId = (tasks: readonly TaskSpec[]) => new Map(tasks.map((task) => [task.id, task]));

/** The messages `convertTaskmaster` throws for `value`; fails the test when it does not throw PlanInvalid. */
function problems(value: unknown, options: Partial<TaskmasterOptions> = {}): string[] {
  try {
    convertTaskmaster(value, { source: "tasks.json", ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanInvalid);
    return (error as PlanInvalid).issues.map((issue) => issue.message);
  }
  throw new Error("expected PlanInvalid");
}

const task = (id: number | string, more: Record<string, unknown> = {}) => ({
  id,
  title: `Task ${id}`,
  description: "",
  status: "pending",
  dependencies: [],
  ...more,
});

describe("a legacy Taskmaster file", () => {
  const result = legacy();
  const tasks = byId(result.plan.tasks);

  it("becomes one plan named after meta.projectName, its subtasks tasks of their own after their parent", () => {
    expect(result).toMatchObject({ layout: "legacy", tag: "master", otherTags: [] });
    expect(result.plan).toMatchObject({ id: "notes-api", name: "Notes API" });
    expect(result.plan.tasks.map((t) => t.id)).toEqual([
      "1",
      "2",
      "2.1",
      "2.2",
      "2.3",
      "3",
      "3.1",
      "3.2",
      "4",
      "5",
    ]);
    expect(result.plan.origin).toEqual({ kind: "taskmaster", reference: "tasks.json", title: "Notes API" });
    expect(result.plan.extra).toMatchObject({ meta: { projectName: "Notes API", version: "1.0.0" } });
  });

  it('reads numeric, sibling and "3.2" references; a parent waits for its subtasks, which wait for the parent\'s dependencies', () => {
    const deps = Object.fromEntries(result.plan.tasks.map((t) => [t.id, t.dependencies]));
    expect(deps).toEqual({
      "1": [],
      "2": ["1", "2.1", "2.2", "2.3"],
      "2.1": ["1"],
      "2.2": ["2.1", "1"],
      "2.3": ["2.1", "2.2", "1"],
      "3": ["2", "3.1", "3.2"],
      "3.1": ["2.2", "2"],
      "3.2": ["3.1", "2"],
      "4": ["3.2"],
      "5": ["3", "4"],
    });
  });

  it("maps statuses, saying once per Taskmaster status which tasks it changed and why", () => {
    expect(Object.fromEntries(result.plan.tasks.map((t) => [t.id, t.status]))).toEqual({
      "1": "DONE",
      "2": "PENDING",
      "2.1": "DONE",
      "2.2": "PENDING",
      "2.3": "PENDING",
      "3": "PENDING",
      "3.1": "PENDING",
      "3.2": "PENDING",
      "4": "SKIPPED",
      "5": "PENDING",
    });
    expect(result.statusMappings).toEqual([
      {
        from: "in-progress",
        to: "PENDING",
        why: expect.stringContaining("no whilly worker"),
        taskIds: ["2", "2.2"],
      },
      { from: "deferred", to: "SKIPPED", why: expect.stringContaining("blocked"), taskIds: ["4"] },
      { from: "review", to: "PENDING", why: expect.stringContaining("no review state"), taskIds: ["5"] },
    ]);
    expect(tasks.get("2")?.extra).toMatchObject({ taskmaster_status: "in-progress" });
    expect(tasks.get("1")?.extra).not.toHaveProperty("taskmaster_status");
  });

  it("takes the parent's priority for a subtask without one, medium for a task without one", () => {
    expect(tasks.get("2.1")?.priority).toBe("high");
    expect(tasks.get("3.1")?.priority).toBe("medium");
    expect(tasks.get("3.2")?.priority).toBe("high");
    expect(tasks.get("5")?.priority).toBe("medium");
  });

  it("writes title, description and details into the description, testStrategy as a criterion, and keeps other fields", () => {
    expect(tasks.get("1")).toMatchObject({
      description:
        "Set up the project\n\nCreate the Node project with TypeScript and a test runner.\n\nDetails:\nnpm init, add typescript and vitest, a tsconfig with strict mode.",
      acceptanceCriteria: ["Test strategy: npm test runs an empty suite and passes."],
      testSteps: [],
      extra: { title: "Set up the project" },
    });
    expect(tasks.get("2.2")?.description).toBe(
      "Repository functions\n\ncreate, get, update and delete functions over the table.\n\nDetails:\nPrepared statements only.\n\nPart of task 2: Storage layer.",
    );
    expect(tasks.get("2.2")?.extra).toMatchObject({ parent_task: "2" });
    expect(tasks.get("3")?.description).toMatch(
      /\n\nIts subtasks \(3\.1, 3\.2\) come first, as tasks of their own;/,
    );
    expect(tasks.get("4")?.extra).toMatchObject({ complexity: 7, taskmaster_status: "deferred" });
    expect(tasks.get("5")?.extra).toMatchObject({ assignee: "sam" });
  });

  it("takes --plan-id in place of the derived id, and refuses a tag other than master", () => {
    expect(legacy({ planId: "notes" }).plan.id).toBe("notes");
    expect(() => legacy({ tag: "feature-x" })).toThrow(InvalidInput);
    expect(() => legacy({ tag: "feature-x" })).toThrow(/legacy Taskmaster file .* has no tag 'feature-x'/);
    expect(legacy({ tag: "master" }).plan.id).toBe("notes-api");
  });
});

describe("a tagged Taskmaster file", () => {
  it("imports the master tag by default, named after the project, listing the other tags", () => {
    const result = tagged();
    expect(result).toMatchObject({ layout: "tagged", tag: "master", otherTags: ["feature-export"] });
    expect(result.plan).toMatchObject({ id: "shop", name: "shop" });
    expect(result.plan.origin).toMatchObject({ kind: "taskmaster", reference: "tasks.json#master" });
    expect(result.plan.extra).toMatchObject({ metadata: { description: "Tasks for master context" } });
    const tasks = byId(result.plan.tasks);
    expect(tasks.get("1")).toMatchObject({
      priority: "critical",
      keyFiles: ["src/auth/session.ts", "src/auth/session.test.ts"],
      acceptanceCriteria: [
        "Tokens expire after 24 hours",
        "A tampered token is refused",
        "Test strategy: A token verifies until it expires; a changed byte fails.",
      ],
      extra: {
        relevantFiles: [
          { path: "src/auth/session.ts", description: "token functions", action: "create" },
          {},
        ],
      },
    });
    // A text of acceptance criteria is one criterion per line, bullets dropped.
    expect(tasks.get("2")?.acceptanceCriteria.slice(0, 2)).toEqual([
      "A right password answers 204 with the cookie",
      "A wrong password answers 401",
    ]);
    // "1" in a subtask names its sibling 2.1, like "2.1"; repeats are merged.
    expect(tasks.get("2.2")).toMatchObject({ dependencies: ["2.1", "1"], keyFiles: ["src/routes/login.ts"] });
    expect(tasks.get("3")).toMatchObject({ status: "SKIPPED", dependencies: ["2.2"] });
    expect(tasks.get("4")?.extra).toMatchObject({ tags: ["security"], metadata: { estimate: "2h" } });
    expect(result.statusMappings.map((m) => [m.from, m.to, m.taskIds])).toEqual([
      ["blocked", "PENDING", ["2"]],
      ["cancelled", "SKIPPED", ["3"]],
      ["review", "PENDING", ["4"]],
    ]);
  });

  it("imports another tag with --tag, its plan id and name carrying the tag", () => {
    const result = tagged({ tag: "feature-export" });
    expect(result).toMatchObject({ tag: "feature-export", otherTags: ["master"] });
    expect(result.plan).toMatchObject({ id: "shop-feature-export", name: "shop (feature-export)" });
    expect(result.plan.origin).toMatchObject({ reference: "tasks.json#feature-export" });
    expect(result.plan.tasks.map((t) => [t.id, t.status, t.dependencies])).toEqual([
      ["1", "PENDING", []],
      ["2", "PENDING", ["1"]],
    ]);
    expect(result.statusMappings).toEqual([expect.objectContaining({ from: "in-progress", taskIds: ["2"] })]);
  });

  it("names the tags there when the tag is missing", () => {
    const attempt = () => tagged({ tag: "nope" });
    expect(attempt).toThrow(InvalidInput);
    expect(attempt).toThrow("tasks.json has no tag 'nope'; its tags: 'master', 'feature-export'");
  });

  it("falls back to 'taskmaster' as the name, and to the id of a tag with no letters or digits", () => {
    const file = { master: { tasks: [task(1)] }, ü: { tasks: [task(1)] } };
    expect(convertTaskmaster(file, { source: "t" }).plan).toMatchObject({
      id: "taskmaster",
      name: "taskmaster",
    });
    expect(convertTaskmaster(file, { source: "t", tag: "ü" }).plan.id).toBe("taskmaster-tag");
  });
});

describe("references", () => {
  it("reads a plain number in a subtask as a task when the parent has no such subtask", () => {
    const file = {
      tasks: [
        task(1),
        task(2, { subtasks: [task(1, { dependencies: [] }), task(2, { dependencies: [1, 5] })] }),
        task(5),
      ],
    };
    const tasks = byId(convertTaskmaster(file, { source: "t" }).plan.tasks);
    expect(tasks.get("2.2")?.dependencies).toEqual(["2.1", "5"]);
  });

  it("keeps a whilly field the file gives (test_steps, max_attempts) and adds to key_files", () => {
    const file = {
      tasks: [
        task(1, { test_steps: ["npm test"], max_attempts: 5, key_files: ["a.ts"], relevantFiles: ["b.ts"] }),
      ],
    };
    const [only] = convertTaskmaster(file, { source: "t" }).plan.tasks;
    expect(only).toMatchObject({ testSteps: ["npm test"], maxAttempts: 5, keyFiles: ["b.ts", "a.ts"] });
  });

  it("takes the file's own whilly plan fields: verify, plan_id, project", () => {
    const file = { tasks: [task(1)], verify: "npm test", plan_id: "mine", project: "Mine" };
    expect(convertTaskmaster(file, { source: "t" }).plan).toMatchObject({
      id: "mine",
      name: "Mine",
      verify: ["npm test"],
    });
    expect(convertTaskmaster(file, { source: "t", planId: "flag" }).plan.id).toBe("flag");
    const named = { tasks: [task(1)], project: "My Notes", meta: { projectName: "Other" } };
    expect(convertTaskmaster(named, { source: "t", projectName: "dir" }).plan).toMatchObject({
      id: "my-notes",
      name: "My Notes",
    });
  });
});

describe("what the import refuses", () => {
  it("names a dangling reference by its path, with the fix", () => {
    expect(problems({ tasks: [task(1), task(2, { dependencies: [1, 9, "1.4"] })] })).toEqual([
      "tasks[1].dependencies[1] (task 2): depends on '9', which is no task or subtask in the file; remove the reference or add the task (task-master fix-dependencies removes every reference to a missing task)",
      expect.stringMatching(/^tasks\[1\]\.dependencies\[2\] \(task 2\): depends on '1\.4', which is no task/),
    ]);
    const file = { master: { tasks: [task(1, { subtasks: [task(1, { dependencies: [7] })] })] } };
    expect(problems(file)).toEqual([
      expect.stringMatching(
        /^master\.tasks\[0\]\.subtasks\[0\]\.dependencies\[0\] \(subtask 1\.1\): depends on '7', which is no task or subtask in tag 'master'/,
      ),
    ]);
  });

  it("refuses a reference to itself or from a subtask to its own parent", () => {
    expect(
      problems({
        tasks: [
          task(1, {
            dependencies: [1],
            subtasks: [task(1, { dependencies: ["1"] }), task(2, { dependencies: ["2"] })],
          }),
        ],
      }),
    ).toEqual([
      "tasks[0].dependencies[0] (task 1): depends on itself; remove the reference",
      // In a subtask "1" is its sibling 1.1, so this is 1.1 itself.
      "tasks[0].subtasks[0].dependencies[0] (subtask 1.1): depends on itself; remove the reference",
      "tasks[0].subtasks[1].dependencies[0] (subtask 1.2): depends on itself; remove the reference",
    ]);
    expect(
      problems({
        tasks: [
          task(1, { subtasks: [task(1, { dependencies: ["2"] })] }),
          task(2, { subtasks: [task(1, { dependencies: ["2"] })] }),
        ],
      }),
    ).toEqual([
      "tasks[1].subtasks[0].dependencies[0] (subtask 2.1): depends on its own parent task '2', which is done only after its subtasks; remove the reference",
    ]);
  });

  it("names every malformed field at once", () => {
    const file = {
      tasks: [
        task(1, { status: "wip", priority: "urgent", dependencies: "2" }),
        task(1),
        { title: "no id" },
        task(3, {
          dependencies: [null],
          subtasks: {},
          title: 3,
          relevantFiles: [{ file: "a" }],
          acceptanceCriteria: [1],
        }),
        "text",
      ],
    };
    expect(problems(file)).toEqual([
      "tasks[0].status (task 1): 'status' must be one of pending, in-progress, done, review, blocked, deferred, cancelled; got 'wip'",
      "tasks[0].priority (task 1): 'priority' must be one of low, medium, high, critical; got 'urgent'",
      `tasks[0].dependencies (task 1): 'dependencies' must be a list of task ids, e.g. [1, "3.2"]; got '2'`,
      `tasks[2].id: the task's 'id' is missing; give it an id, e.g. "id": 1`,
      `tasks[3].dependencies[0] (task 3): a dependency must be a task id (a whole number, or a string such as "3" or "3.2"); got null`,
      "tasks[3].title (task 3): 'title' must be a string; got 3",
      "tasks[3].subtasks (task 3): must be a list of subtasks; got an object",
      "tasks[4]: a task must be a JSON object; got 'text'",
      "tasks[1].id (task 1): the id is taken by tasks[0]; give one of them another id",
      `tasks[3].relevantFiles[0] (task 3): a relevant file must be {"path": "src/app.ts", ...} or a path; got an object`,
      "tasks[3].acceptanceCriteria (task 3): 'acceptanceCriteria' must be a list of strings or a text; got an array",
    ]);
  });

  it("refuses what is no Taskmaster file", () => {
    expect(problems([])).toEqual(["the file: a Taskmaster tasks.json is a JSON object; got an array"]);
    expect(problems({ project: "x" })).toEqual([
      `the file: not a Taskmaster tasks.json: expected {"tasks": [...]} (legacy) or {"master": {"tasks": [...]}} (tagged)`,
    ]);
    expect(problems({ tasks: {} })).toEqual(["tasks: must be a list of tasks; got an object"]);
  });

  it("reports what the plan checks find (a cycle, a whilly field) at the task's path in the file", () => {
    const cycle = { master: { tasks: [task(1, { dependencies: [2] }), task(2, { dependencies: [1] })] } };
    expect(problems(cycle)).toEqual(["Cycle detected: 1 → 2 → 1"]);
    const file = { master: { tasks: [task(1, { subtasks: [task(1, { test_steps: "npm test" })] })] } };
    try {
      convertTaskmaster(file, { source: "t" });
      expect.unreachable();
    } catch (error) {
      expect((error as PlanInvalid).issues).toEqual([
        expect.objectContaining({
          path: "master.tasks[0].subtasks[0].test_steps",
          message: expect.stringMatching(
            /^task '1\.1' \(master\.tasks\[0\]\.subtasks\[0\]\): 'test_steps' must be/,
          ),
        }),
      ]);
      expect((error as PlanInvalid).hint).toMatch(/docs\/taskmaster\.md/);
    }
  });

  it("refuses invalid JSON and repeated keys, naming where", () => {
    expect(() => parseTaskmasterFile('{"tasks": [}', { source: "t" })).toThrow(
      /invalid JSON at line 1, column 12/,
    );
    expect(() => parseTaskmasterFile('{"tasks": [{"id": 1, "id": 2}]}', { source: "t" })).toThrow(
      /tasks\[0\]\.id: duplicate key \(line 1, column 22\)/,
    );
    expect(parseTaskmasterFile(`\uFEFF{"tasks": []}`, { source: "t" }).plan.tasks).toEqual([]);
  });
});
