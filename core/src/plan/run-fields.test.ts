// biome-ignore lint/style/noRestrictedImports: tests read the plan fixtures from disk.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PlanInvalid } from "../errors.js";
import { exportPlan } from "./export.js";
import { parsePlanFile, parsePlanObject } from "./parse-plan.js";

const task = (id: string, more: Record<string, unknown> = {}) => ({
  id,
  status: "pending",
  priority: "low",
  description: id,
  ...more,
});
const plan = (more: Record<string, unknown>, tasks = [task("A")]) => ({ project: "p", tasks, ...more });

/** The messages `parsePlanObject` throws for `value`; fails the test when it does not throw. */
function messages(value: unknown): string[] {
  try {
    parsePlanObject(value, "plan.json");
  } catch (error) {
    expect(error).toBeInstanceOf(PlanInvalid);
    return (error as PlanInvalid).issues.map((issue) => issue.message);
  }
  throw new Error("expected PlanInvalid");
}

describe("the plan's verify, setup and max_attempts", () => {
  it("reads them into the spec, not into extra", () => {
    const spec = parsePlanObject(
      plan({ verify: ["npm run lint", "npm test"], setup: "npm ci", max_attempts: 5 }),
      "x",
    );
    expect(spec).toMatchObject({ verify: ["npm run lint", "npm test"], setup: "npm ci", maxAttempts: 5 });
    expect(spec.extra).toEqual({});
  });

  it("takes one command as a one-item list and a numeric string as the number", () => {
    const spec = parsePlanObject(plan({ verify: "npm test", max_attempts: " 7 " }), "x");
    expect(spec.verify).toEqual(["npm test"]);
    expect(spec.maxAttempts).toBe(7);
  });

  it("leaves them out when absent, null or an empty list", () => {
    for (const more of [{}, { verify: null, setup: null, max_attempts: null }, { verify: [] }]) {
      const spec = parsePlanObject(plan(more), "x");
      expect(spec).not.toHaveProperty("verify");
      expect(spec).not.toHaveProperty("setup");
      expect(spec).not.toHaveProperty("maxAttempts");
      expect(spec.extra).toEqual({});
    }
  });

  it("refuses bad values, naming the field and the fix", () => {
    expect(messages(plan({ verify: 3, setup: ["npm ci"], max_attempts: 0 }))).toEqual([
      `'verify' must be a shell command or a list of them, e.g. "npm test" or ["npm run lint", "npm test"]; got 3`,
      `'setup' must be a non-blank shell command, e.g. "npm ci"; got an array (leave it out for no setup)`,
      "'max_attempts' must be a whole number of attempts from 1 to 100, e.g. 3; got 0 (leave it out for the default, 3)",
    ]);
    expect(messages(plan({ verify: ["npm test", " ", 1] }))).toEqual([
      `'verify'[1] must be a non-blank shell command, e.g. "npm test" or ["npm run lint", "npm test"]; got ' '`,
      `'verify'[2] must be a non-blank shell command, e.g. "npm test" or ["npm run lint", "npm test"]; got 1`,
    ]);
    expect(messages(plan({ verify: "" }))[0]).toMatch(/^'verify' must be a non-blank shell command/);
    expect(messages(plan({ setup: "  " }))[0]).toMatch(/^'setup' must be a non-blank shell command/);
    for (const bad of [101, 2.5, -1, "3.0", "three", "", true, [3]]) {
      expect(messages(plan({ max_attempts: bad }))).toEqual([
        expect.stringMatching(/^'max_attempts' must be a whole number of attempts from 1 to 100/),
      ]);
    }
  });
});

describe("a task's max_attempts", () => {
  it("is read into the spec, a numeric string as the number, and left out when absent", () => {
    const spec = parsePlanObject(
      plan({}, [task("A", { max_attempts: 1 }), task("B", { max_attempts: "100" }), task("C")]),
      "x",
    );
    expect(spec.tasks.map((t) => t.maxAttempts)).toEqual([1, 100, undefined]);
    expect(spec.tasks[2]).not.toHaveProperty("maxAttempts");
    expect(spec.tasks.map((t) => t.extra)).toEqual([{}, {}, {}]);
  });

  it("is refused out of range, naming the task and the field", () => {
    expect(messages(plan({}, [task("A", { max_attempts: 0 }), task("B", { max_attempts: "x" })]))).toEqual([
      "task 'A' (tasks[0]): 'max_attempts' must be a whole number of attempts from 1 to 100, e.g. 3; got 0 (leave it out for the plan's, else 3)",
      "task 'B' (tasks[1]): 'max_attempts' must be a whole number of attempts from 1 to 100, e.g. 3; got 'x' (leave it out for the plan's, else 3)",
    ]);
  });
});

describe("export of verify, setup and max_attempts", () => {
  it("writes them when set and round-trips them", () => {
    const spec = parsePlanObject(
      plan({ verify: "npm test", setup: "npm ci", max_attempts: "2", other: 1 }, [
        task("A", { max_attempts: "4" }),
        task("B"),
      ]),
      "x",
    );
    const text = exportPlan(spec, spec.tasks);
    const json = JSON.parse(text);
    expect(json).toMatchObject({ verify: ["npm test"], setup: "npm ci", max_attempts: 2, other: 1 });
    expect(json.tasks[0].max_attempts).toBe(4);
    expect(json.tasks[1]).not.toHaveProperty("max_attempts");
    const again = parsePlanFile(text, "export");
    expect(again).toEqual(spec);
    expect(exportPlan(again, again.tasks)).toBe(text);
  });

  it("writes none of them for a plan without them", () => {
    const spec = parsePlanObject(plan({}), "x");
    const json = JSON.parse(exportPlan(spec, spec.tasks));
    expect(Object.keys(json).sort()).toEqual(["plan_id", "project", "tasks"]);
    expect(json.tasks[0]).not.toHaveProperty("max_attempts");
  });

  it("reads the checks fixture", () => {
    const name = "checks.tasks.json";
    const text = readFileSync(new URL(`../../../test/fixtures/plans/${name}`, import.meta.url), "utf8");
    const spec = parsePlanFile(text, name);
    expect(spec).toMatchObject({ verify: ["test -s NOTES.md"], setup: "mkdir -p build", maxAttempts: 2 });
    expect(spec.tasks.map((t) => t.maxAttempts)).toEqual([undefined, 4, undefined]);
  });
});
