// biome-ignore lint/style/noRestrictedImports: tests read the plan fixtures from disk.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PlanInvalid, type PlanIssue } from "../errors.js";
import { instructionWarnings } from "./instructions.js";
import { MAX_INT4, MAX_VERSION } from "./limits.js";
import { parsePlanFile, parsePlanObject } from "./parse-plan.js";

const PLANS = new URL("../../../test/fixtures/plans/", import.meta.url);
const fixtures = readdirSync(PLANS).filter((name) => name.endsWith(".json"));
const read = (name: string) => readFileSync(new URL(name, PLANS), "utf8");

const task = (id: string, more: Record<string, unknown> = {}) => ({
  id,
  status: "pending",
  priority: "medium",
  description: `task ${id}`,
  ...more,
});

/** The issues `parsePlanObject` throws for `value`; fails the test when it does not throw. */
function issuesOf(value: unknown, planIdOverride?: string): readonly PlanIssue[] {
  try {
    parsePlanObject(value, "plan.json", planIdOverride);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanInvalid);
    return (error as PlanInvalid).issues;
  }
  throw new Error("expected PlanInvalid");
}

const messages = (value: unknown) => issuesOf(value).map((issue) => issue.message);

describe("parsePlanFile on the reference plans", () => {
  it("finds every fixture", () => {
    expect(fixtures).toEqual(
      expect.arrayContaining([
        "demo.tasks.json",
        "demo-parallel.tasks.json",
        "v4-1.tasks.json",
        "workshop.tasks.json",
      ]),
    );
  });

  it.each(fixtures)("parses %s", (name) => {
    const text = read(name);
    const raw = JSON.parse(text) as { project: string; plan_id?: string; tasks: unknown[] };
    const plan = parsePlanFile(text, name);
    expect(plan.name).toBe(raw.project);
    expect(plan.id).toBe(raw.plan_id ?? raw.project);
    expect(plan.tasks).toHaveLength(raw.tasks.length);
  });

  it("normalises status and priority and keeps extra fields", () => {
    const plan = parsePlanFile(read("demo.tasks.json"), "demo.tasks.json");
    const first = plan.tasks[0];
    expect(first?.status).toBe("PENDING");
    expect(first?.priority).toBe("high");
    expect(first?.extra).toEqual({ phase: "Phase 1 — Hello", category: "doc" });
    expect(plan.extra).toEqual({ prd_file: "examples/demo/PRD-demo.md" });
    expect(plan.tasks[3]?.dependencies).toEqual(["DEMO-001", "DEMO-002"]);
  });

  it("imports a plan written in Russian with its text unchanged", () => {
    const plan = parsePlanFile(read("demo-ru.tasks.json"), "demo-ru.tasks.json");
    expect(plan.id).toBe("demo-ru");
    expect(plan.name).toBe("demo (русский)");
    expect(plan.tasks[0]?.description).toBe(
      "Создать файл DEMO-HELLO.md с одной строкой 'Hello from Whilly demo!'.",
    );
    expect(plan.tasks[1]?.acceptanceCriteria).toContain("В файле есть ровно три bullet'а ('-')");
  });

  it("takes the project title as the plan id when plan_id is absent, spaces and all", () => {
    const plan = parsePlanFile(read("v4-1.tasks.json"), "v4-1.tasks.json");
    expect(plan.id).toBe("Whilly v4.1 — Out-of-scope items from v4.0 release");
    expect(plan.extra).toHaveProperty("description");
    expect(plan.tasks.some((t) => t.status === "DONE")).toBe(true);
    expect(plan.tasks.find((t) => "completion_notes" in t.extra)).toBeDefined();
  });

  it("reads agent_instructions into agentInstructions and not into extra", () => {
    const plan = parsePlanFile(read("workshop.tasks.json"), "workshop.tasks.json");
    expect(plan.agentInstructions.before).toHaveLength(3);
    expect(plan.agentInstructions.after).toHaveLength(2);
    expect(plan.extra).not.toHaveProperty("agent_instructions");
    expect(plan.extra).toHaveProperty("created_at", "2026-04-20T00:00:00Z");
  });
});

describe("parsePlanObject normalisation", () => {
  it("defaults optional task fields", () => {
    const plan = parsePlanObject(
      { project: "p", tasks: [task("A", { status: "Done", priority: "HIGH" })] },
      "x",
    );
    expect(plan.tasks[0]).toEqual({
      id: "A",
      status: "DONE",
      priority: "high",
      description: "task A",
      dependencies: [],
      keyFiles: [],
      acceptanceCriteria: [],
      testSteps: [],
      prdRequirement: "",
      version: 0,
      extra: {},
    });
    expect(plan.agentInstructions).toEqual({});
    expect(plan.keptInstructions).toEqual({});
  });

  it("keeps CLAIMED and IN_PROGRESS as given", () => {
    const plan = parsePlanObject(
      { project: "p", tasks: [task("A", { status: "claimed" }), task("B", { status: "in_progress" })] },
      "x",
    );
    expect(plan.tasks.map((t) => t.status)).toEqual(["CLAIMED", "IN_PROGRESS"]);
  });

  it("lets an override replace plan_id", () => {
    expect(parsePlanObject({ project: "p", plan_id: "q", tasks: [] }, "x", "r").id).toBe("r");
  });

  it("accepts ids with spaces and non-ASCII text", () => {
    const plan = parsePlanObject({ project: "Проект 1", tasks: [task("задача один")] }, "x");
    expect(plan.id).toBe("Проект 1");
    expect(plan.tasks[0]?.id).toBe("задача один");
  });

  it("keeps a '__proto__' field as data", () => {
    const raw = JSON.parse(
      '{"project":"p","tasks":[{"id":"A","status":"pending","priority":"low","description":"","__proto__":{"x":1}}]}',
    );
    const plan = parsePlanObject(raw, "x");
    expect(Object.getPrototypeOf(plan.tasks[0]?.extra)).toBe(Object.prototype);
    expect(Object.keys(plan.tasks[0]?.extra ?? {})).toEqual(["__proto__"]);
  });
});

describe("parse errors name the field and the task", () => {
  it("reports invalid JSON with line and column", () => {
    expect(() => parsePlanFile(read("invalid/invalid-json.tasks.txt"), "bad.json")).toThrow(
      /^bad\.json: invalid JSON at line 4, column 17: expected ',' or '}', found '"'$/,
    );
  });

  it("reports text that ends too early", () => {
    expect(() => parsePlanFile('{"project": "p",\n "tasks": [', "f")).toThrow(/line 2, column 12/);
  });

  it("ignores a byte order mark", () => {
    expect(parsePlanFile('\uFEFF{"project":"p","tasks":[]}', "f").id).toBe("p");
  });

  it("refuses a top level that is not an object", () => {
    expect(messages([])).toEqual(["the plan must be a JSON object at the top level; got an array"]);
    expect(messages(null)).toEqual(["the plan must be a JSON object at the top level; got null"]);
  });

  it("reports missing project and tasks together", () => {
    expect(messages({})).toEqual([
      "missing required plan field 'project'",
      "missing required plan field 'tasks'",
    ]);
  });

  it("reports plan-level type errors", () => {
    expect(messages({ project: "", tasks: {} })).toEqual([
      "'project' must be a non-empty string; got ''",
      "'tasks' must be a JSON array; got an object",
    ]);
    expect(messages({ project: "p", plan_id: 7, tasks: [] })).toEqual([
      "'plan_id' must be a non-empty string; got 7",
    ]);
  });

  it("names the task and field for every bad field at once", () => {
    const issues = issuesOf(JSON.parse(read("invalid/bad-fields.tasks.json")));
    expect(issues.map((i) => i.message)).toEqual([
      "task 'T-2' (tasks[1]): 'status' must be one of PENDING, CLAIMED, IN_PROGRESS, DONE, FAILED, SKIPPED; got 'started'",
      "task 'T-2' (tasks[1]): 'priority' must be one of critical, high, medium, low; got 'urgent'",
      "task 'T-2' (tasks[1]): 'description' must be a string; got 42",
      "task 'T-2' (tasks[1]): 'version' must be a non-negative integer; got -1",
      "task 'T-1' (tasks[2]): duplicate task id; tasks[0] has the same id",
    ]);
    expect(issues.map((i) => i.path)).toEqual([
      "tasks[1].status",
      "tasks[1].priority",
      "tasks[1].description",
      "tasks[1].version",
      "tasks[2].id",
    ]);
    expect(issues[0]?.taskId).toBe("T-2");
  });

  it("reports missing required task fields", () => {
    expect(messages({ project: "p", tasks: [{ id: "A" }] })).toEqual([
      "task 'A' (tasks[0]): missing required field 'status' (one of PENDING, CLAIMED, IN_PROGRESS, DONE, FAILED, SKIPPED)",
      "task 'A' (tasks[0]): missing required field 'priority' (one of critical, high, medium, low)",
      "task 'A' (tasks[0]): missing required field 'description' (a string, may be empty)",
    ]);
  });

  it("labels a task without a usable id by its index", () => {
    expect(messages({ project: "p", tasks: [task(""), "T-9", task("B", { id: undefined })] })).toEqual([
      "task at tasks[0]: 'id' must be a non-empty string; got ''",
      "task at tasks[1]: must be a JSON object; got 'T-9'",
      "task at tasks[2]: missing required field 'id'",
    ]);
  });

  it("rejects list fields that are not lists of strings", () => {
    expect(
      messages({ project: "p", tasks: [task("A", { key_files: "a.ts", test_steps: ["ok", 3] })] }),
    ).toEqual([
      "task 'A' (tasks[0]): 'key_files' must be a list of strings; got 'a.ts'",
      "task 'A' (tasks[0]): 'test_steps'[1] must be a string; got 3",
    ]);
  });

  it("rejects boolean, fractional and oversized versions", () => {
    expect(messages({ project: "p", tasks: [task("A", { version: true })] })).toEqual([
      "task 'A' (tasks[0]): 'version' must be a non-negative integer; got true",
    ]);
    expect(messages({ project: "p", tasks: [task("A", { version: 1.5 })] })).toHaveLength(1);
    expect(messages({ project: "p", tasks: [task("A", { version: 2 ** 31 })] })).toEqual([
      `task 'A' (tasks[0]): 'version' must be at most ${MAX_VERSION}, leaving room for the transitions that count up from it; got 2147483648 (set it to 0 or leave it out)`,
    ]);
  });

  it("keeps versions far enough below the store's INTEGER column for every later transition", () => {
    expect(MAX_VERSION).toBeLessThanOrEqual(MAX_INT4 - 1_000_000_000);
    for (const version of [2_147_483_647, 2_147_483_646, MAX_VERSION + 1]) {
      const found = messages({ project: "p", tasks: [task("A", { version })] });
      expect(found).toHaveLength(1);
      expect(found[0]).toContain("'version' must be at most");
    }
    const accepted = parsePlanObject({ project: "p", tasks: [task("A", { version: MAX_VERSION })] }, "test");
    expect(accepted.tasks[0]?.version).toBe(MAX_VERSION);
  });

  it("rejects a non-string prd_requirement", () => {
    expect(messages({ project: "p", tasks: [task("A", { prd_requirement: ["x"] })] })).toEqual([
      "task 'A' (tasks[0]): 'prd_requirement' must be a string; got an array",
    ]);
  });

  it("rejects dependencies outside the plan", () => {
    const issues = issuesOf(JSON.parse(read("invalid/unknown-dependency.tasks.json")));
    expect(issues).toEqual([
      {
        path: "tasks[0].dependencies[0]",
        taskId: "A",
        message: "task 'A' depends on 'Z', which is not in the plan",
      },
    ]);
  });

  it("rejects a dependency listed twice", () => {
    expect(messages({ project: "p", tasks: [task("A"), task("B", { dependencies: ["A", "A"] })] })).toEqual([
      "task 'B' (tasks[1]): 'dependencies' lists 'A' more than once",
    ]);
  });

  it("says once that a dependency listed twice is not in the plan", () => {
    expect(messages({ project: "p", tasks: [task("B", { dependencies: ["Z", "Z"] })] })).toEqual([
      "task 'B' (tasks[0]): 'dependencies' lists 'Z' more than once",
      "task 'B' depends on 'Z', which is not in the plan",
    ]);
  });

  it("prints each cycle as a path, self-loops included", () => {
    const issues = issuesOf(JSON.parse(read("invalid/cycle.tasks.json")));
    expect(issues.map((i) => i.message)).toEqual(["Cycle detected: A → C → B → A", "Cycle detected: D → D"]);
    expect(issues.map((i) => i.taskId)).toEqual(["A", "D"]);
  });

  it("reports NUL characters in values and keys, naming the field", () => {
    expect(
      messages({ project: "p", tasks: [task("A", { description: "a\u0000b", notes: { "x\u0000": 1 } })] }),
    ).toEqual([
      "task 'A' (tasks[0]): 'description' contains a NUL character (\\u0000) at offset 1, which Postgres cannot store",
      "task 'A' (tasks[0]): a key in 'notes' ('x\\u0000') contains a NUL character (\\u0000) at offset 1, which Postgres cannot store",
    ]);
    expect(messages({ project: "p\u0000", plan_id: "p", tasks: [] })).toEqual([
      "'project' contains a NUL character (\\u0000) at offset 1, which Postgres cannot store",
    ]);
  });

  it("reports lone surrogates, also when they come from JSON escapes", () => {
    expect(() => parsePlanFile('{"project":"p","tasks":[],"note":["ok","\\ud800x"]}', "f")).toThrow(
      "f: 'note'[1] contains a lone UTF-16 surrogate (\\ud800) at offset 0, which is not valid Unicode text",
    );
    const paired = parsePlanFile('{"project":"p","tasks":[],"note":"\\ud83d\\ude00"}', "f");
    expect(paired.extra.note).toBe("😀");
  });

  it("rejects control characters in ids", () => {
    expect(messages({ project: "p", tasks: [task("A\tB")] })).toEqual([
      "task 'A\\u0009B' (tasks[0]): 'id' must not contain control characters; found \\u0009 at offset 1",
    ]);
    expect(messages({ project: "p", plan_id: "line\nbreak", tasks: [] })).toEqual([
      "'plan_id' must not contain control characters; found \\u000a at offset 4",
    ]);
  });

  it("rejects blank ids and ids with surrounding whitespace", () => {
    expect(messages({ project: "p", tasks: [task("   "), task(" B")] })).toEqual([
      "task '   ' (tasks[0]): 'id' must not be empty or blank",
      "task ' B' (tasks[1]): 'id' must not start or end with whitespace",
    ]);
  });

  it("rejects '.' and '..' as ids, which URLs would normalise away", () => {
    expect(messages({ project: "p", tasks: [task("."), task("..")] })).toEqual([
      "task '.' (tasks[0]): 'id' must not be '.' or '..' (they cannot stand in a URL path)",
      "task '..' (tasks[1]): 'id' must not be '.' or '..' (they cannot stand in a URL path)",
    ]);
  });

  it("limits id length and says the limit", () => {
    const long = "x".repeat(257);
    expect(messages({ project: "p", tasks: [task(long)] })[0]).toMatch(
      /^task 'x{80}…' \(tasks\[0\]\): 'id' must be at most 256 characters long; got 257$/,
    );
    expect(messages({ project: long, tasks: [] })).toEqual([
      "'project' (the plan id, as there is no 'plan_id') must be at most 256 characters long; got 257; add a shorter 'plan_id'",
    ]);
    expect(parsePlanObject({ project: long, plan_id: "short", tasks: [] }, "x").name).toBe(long);
    expect(parsePlanObject({ project: "p", tasks: [task("x".repeat(256))] }, "x").tasks).toHaveLength(1);
  });

  it("checks an override like a plan_id", () => {
    expect(issuesOf({ project: "p", tasks: [] }, "a\u0007").map((i) => i.message)).toEqual([
      "the plan id given in place of 'plan_id' must not contain control characters; found \\u0007 at offset 1",
    ]);
  });

  it("limits descriptions to 64 KiB of UTF-8", () => {
    const ok = "д".repeat(32 * 1024);
    expect(
      parsePlanObject({ project: "p", tasks: [task("A", { description: ok })] }, "x").tasks,
    ).toHaveLength(1);
    expect(messages({ project: "p", tasks: [task("A", { description: `${ok}!` })] })).toEqual([
      "task 'A' (tasks[0]): 'description' is 65537 bytes long in UTF-8; the limit is 65536 (64 KiB)",
    ]);
  });

  it("refuses agent_instructions that is not an object, saying what it should be", () => {
    expect(messages({ project: "p", tasks: [], agent_instructions: ["x"] })).toEqual([
      `'agent_instructions' must be an object mapping names to lists of strings, e.g. {"before": ["Read the README first."]}; got an array`,
    ]);
  });

  it("accepts any agent_instructions key: lists and strings are used, other values kept", () => {
    const plan = parsePlanObject(
      {
        project: "p",
        tasks: [],
        agent_instructions: {
          before_start: ["Pull first."],
          during_work: "Commit often.",
          after: ["bye"],
          before: [1],
          retries: 3,
          style: { tabs: false },
          none: null,
        },
      },
      "x",
    );
    expect(plan.agentInstructions).toEqual({
      before_start: ["Pull first."],
      during_work: ["Commit often."],
      after: ["bye"],
    });
    expect(plan.keptInstructions).toEqual({ before: [1], retries: 3, style: { tabs: false }, none: null });
    expect(instructionWarnings(plan.keptInstructions)).toEqual([
      "'agent_instructions'.before is an array, not a list of strings: it is kept in the plan (export writes it back) but left out of agent prompts",
      "'agent_instructions'.retries is 3, not a list of strings: it is kept in the plan (export writes it back) but left out of agent prompts",
      "'agent_instructions'.style is an object, not a list of strings: it is kept in the plan (export writes it back) but left out of agent prompts",
      "'agent_instructions'.none is null, not a list of strings: it is kept in the plan (export writes it back) but left out of agent prompts",
    ]);
  });

  it("keeps a '__proto__' instruction key as data", () => {
    const plan = parsePlanFile('{"project":"p","tasks":[],"agent_instructions":{"__proto__":["x"]}}', "x");
    expect(Object.keys(plan.agentInstructions)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(plan.agentInstructions)).toBe(Object.prototype);
  });

  it("refuses values JSON cannot hold, in objects built in memory", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(
      messages({ project: "p", tasks: [task("A", { when: new Date(0), n: Number.NaN, loop: circular })] }),
    ).toEqual([
      "task 'A' (tasks[0]): 'when' is not a JSON value; got an instance of Date",
      "task 'A' (tasks[0]): 'n' is not a JSON value; got NaN",
      "task 'A' (tasks[0]): 'loop'.self contains itself (a circular reference)",
    ]);
  });

  it("refuses extra fields nested too deeply instead of overflowing the stack", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const found = messages({ project: "p", tasks: [], deep });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^'deep'(\[0\]){63} is nested more than 64 levels deep$/);
  });

  it("puts the source before the issues in the error message", () => {
    expect(() => parsePlanObject({ project: "p" }, "<dict>")).toThrow(
      "<dict>: missing required plan field 'tasks'",
    );
  });
});
