// biome-ignore lint/style/noRestrictedImports: tests read the plan fixtures from disk.
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanInvalid } from "../errors.js";
import { findDuplicateKeys } from "./json-duplicates.js";
import { parsePlanFile } from "./parse-plan.js";

const PLANS = new URL("../../../test/fixtures/plans/", import.meta.url);

describe("findDuplicateKeys", () => {
  it.each([
    "{}",
    "[]",
    '"a"',
    '{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}',
    // Keys that only look alike, and text inside strings that looks like structure.
    '{"a": "\\"a\\": 1, {\\"a\\"", "A": 1, "a ": 2, "\\\\": 3, "\\\\\\"": 4}',
    '{"x": ["a", "a"], "y": "a"}',
  ])("finds nothing in %j", (text) => {
    expect(findDuplicateKeys(text)).toEqual([]);
  });

  it("names the path and position of every repeat, in text order", () => {
    const text = [
      "{",
      '  "tasks": [',
      '    {"id": "A"},',
      '    {"id": "B", "priority": "low",',
      '     "priority": "high", "priority": "critical"}',
      "  ],",
      '  "project": "p",',
      '  "tasks": []',
      "}",
    ].join("\n");
    expect(findDuplicateKeys(text)).toEqual([
      { path: ["tasks", 1, "priority"], line: 5, column: 6 },
      { path: ["tasks", 1, "priority"], line: 5, column: 26 },
      { path: ["tasks"], line: 8, column: 3 },
    ]);
  });

  it("compares keys after unescaping them", () => {
    expect(findDuplicateKeys('{"ab": 1, "\\u0061b": 2, "a\\"": 3, "a\\u0022": 4}')).toEqual([
      { path: ["ab"], line: 1, column: 11 },
      { path: ['a"'], line: 1, column: 35 },
    ]);
  });

  it("counts columns in characters, not UTF-16 units", () => {
    expect(findDuplicateKeys('{"😀": 1, "😀": 2}')).toEqual([{ path: ["😀"], line: 1, column: 10 }]);
  });

  it("follows array indexes through nesting far deeper than the call stack", () => {
    const depth = 100_000;
    const text = `${"[0,".repeat(depth)}{"k":1,"k":2}${"]".repeat(depth)}`;
    const [found] = findDuplicateKeys(text);
    expect(found?.path).toHaveLength(depth + 1);
    expect(found?.path.slice(0, 2)).toEqual([1, 1]);
    expect(found?.path.at(-1)).toBe("k");
  });

  it("is linear: a few megabytes of plan take well under a second", () => {
    const task = (i: number) => ({ id: `T-${i}`, description: 'x \\" {[,]} '.repeat(20), n: [i, i, i] });
    const text = JSON.stringify({ tasks: Array.from({ length: 20_000 }, (_, i) => task(i)) });
    const started = performance.now();
    expect(findDuplicateKeys(text)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("agrees with JSON.parse on which keys survive, for random JSON", () => {
    // Objects written with repeated keys: the scanner must report exactly the repeats JSON.parse drops.
    const key = fc.constantFrom("a", "b", "\\u0061", 'q\\"', "\\\\");
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null)),
      node: fc.oneof({ depthSize: "small" }, tie("leaf"), tie("array"), tie("object")),
      array: fc.array(tie("node"), { maxLength: 3 }),
      object: fc.array(fc.tuple(key, tie("node")), { maxLength: 4 }),
    }));
    fc.assert(
      fc.property(value.node, (tree) => {
        let expected = 0;
        const write = (node: unknown): string => {
          if (!Array.isArray(node)) return JSON.stringify(node);
          if (node.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string")) {
            const seen = new Set<string>();
            const members = (node as [string, unknown][]).map(([k, v]) => {
              const decoded = JSON.parse(`"${k}"`) as string;
              if (seen.has(decoded)) expected++;
              seen.add(decoded);
              return `"${k}": ${write(v)}`;
            });
            return `{${members.join(", ")}}`;
          }
          return `[${node.map(write).join(", ")}]`;
        };
        const text = write(tree);
        JSON.parse(text);
        expect(findDuplicateKeys(text)).toHaveLength(expected);
      }),
    );
  });
});

describe("parsePlanFile reports duplicate keys as plan issues", () => {
  const plan = (tasks: string) => `{\n  "project": "p",\n  "tasks": [\n${tasks}\n  ]\n}\n`;
  const good = (id: string) =>
    `    {"id": "${id}", "status": "pending", "priority": "low", "description": "d"}`;

  function issuesOf(text: string): string[] {
    try {
      parsePlanFile(text, "plan.json");
    } catch (error) {
      expect(error).toBeInstanceOf(PlanInvalid);
      return (error as PlanInvalid).issues.map((issue) => `${issue.path} | ${issue.message}`);
    }
    throw new Error("expected PlanInvalid");
  }

  it("names a repeated task field by its path, with the other problems of the plan", () => {
    const text = plan(
      [
        good("A"),
        good("B"),
        '    {"id": "C", "status": "pending", "priority": "low", "priority": "high", "description": "d",\n' +
          '     "dependencies": ["Z"]}',
      ].join(",\n"),
    );
    expect(issuesOf(text)).toEqual([
      "tasks[2].priority | tasks[2].priority: duplicate key (line 6, column 57); JSON keeps only the last value, so remove or rename one of them",
      "tasks[2].dependencies[0] | task 'C' depends on 'Z', which is not in the plan",
    ]);
  });

  it("names a repeated top-level key, such as a second tasks list", () => {
    const text = `{"project": "p", "tasks": [${good("A")}], "tasks": []}`;
    expect(issuesOf(text)).toEqual([
      "tasks | tasks: duplicate key (line 1, column 106); JSON keeps only the last value, so remove or rename one of them",
    ]);
  });

  it("still imports every real plan fixture", () => {
    const names = readdirSync(PLANS).filter((name) => name.endsWith(".json"));
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const name of names) {
      const text = readFileSync(new URL(name, PLANS), "utf8");
      expect(findDuplicateKeys(text)).toEqual([]);
      expect(() => parsePlanFile(text, name)).not.toThrow();
    }
  });
});
