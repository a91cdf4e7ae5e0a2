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
const plan = (more: Record<string, unknown>, tasks: unknown[] = [task("A")]) => ({
  project: "p",
  tasks,
  ...more,
});

/** The issues `parsePlanObject` throws for `value`; fails the test when it does not throw. */
function issues(value: unknown): { path: string; message: string }[] {
  try {
    parsePlanObject(value, "plan.json");
  } catch (error) {
    expect(error).toBeInstanceOf(PlanInvalid);
    return (error as PlanInvalid).issues.map(({ path, message }) => ({ path, message }));
  }
  throw new Error("expected PlanInvalid");
}

describe("agent, model, fallback_agents and required_tags in a plan file", () => {
  it("reads them into the spec, not into extra", () => {
    const spec = parsePlanObject(
      plan({ agent: "claude", model: "claude-sonnet-4-5", fallback_agents: ["codex", "gemini"] }, [
        task("A", { agent: "codex", model: "gpt-5-codex", required_tags: ["gpu", "linux"], phase: 1 }),
        task("B"),
      ]),
      "x",
    );
    expect(spec).toMatchObject({
      agent: "claude",
      model: "claude-sonnet-4-5",
      fallbackAgents: ["codex", "gemini"],
    });
    expect(spec.extra).toEqual({});
    const [a, b] = spec.tasks;
    expect(a).toMatchObject({ agent: "codex", model: "gpt-5-codex", requiredTags: ["gpu", "linux"] });
    expect(a?.extra).toEqual({ phase: 1 });
    expect(b?.agent).toBeUndefined();
    expect(b?.model).toBeUndefined();
    expect(b?.requiredTags).toBeUndefined();
  });

  it("takes null and empty lists as absent", () => {
    const spec = parsePlanObject(
      plan({ agent: null, model: null, fallback_agents: [] }, [
        task("A", { agent: null, model: null, required_tags: [] }),
      ]),
      "x",
    );
    expect(spec.agent).toBeUndefined();
    expect(spec.fallbackAgents).toBeUndefined();
    expect(spec.tasks[0]?.requiredTags).toBeUndefined();
    expect(spec.tasks[0]?.extra).toEqual({});
  });

  it("names the task, the field and the fix for each bad value", () => {
    expect(
      issues(
        plan({ agent: "Claude", fallback_agents: "codex" }, [
          task("A", { agent: 3, model: "gpt 5", required_tags: ["gpu", "GPU", "gpu"] }),
          task("B", { required_tags: "gpu" }),
        ]),
      ),
    ).toEqual([
      {
        path: "agent",
        message: `'agent' must be an agent name: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "codex"); got 'Claude' (leave it out for the worker's --agent)`,
      },
      {
        path: "fallback_agents",
        message: `'fallback_agents' must be a list, each item an agent name: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "codex"); got 'codex' (leave it out for no fallback)`,
      },
      {
        path: "tasks[0].agent",
        message: `task 'A' (tasks[0]): 'agent' must be an agent name: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "codex"); got 3 (leave it out for the plan's, else the worker's --agent)`,
      },
      {
        path: "tasks[0].model",
        message: `task 'A' (tasks[0]): 'model' must be a model name of 1 to 200 characters without spaces (e.g. "gpt-5-codex"); got 'gpt 5' (leave it out for the agent's default)`,
      },
      {
        path: "tasks[0].required_tags[1]",
        message: `task 'A' (tasks[0]): 'required_tags'[1] must be a tag: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "gpu"); got 'GPU'`,
      },
      {
        path: "tasks[0].required_tags[2]",
        message: `task 'A' (tasks[0]): 'required_tags' lists 'gpu' more than once; remove the repeat`,
      },
      {
        path: "tasks[1].required_tags",
        message: `task 'B' (tasks[1]): 'required_tags' must be a list, each item a tag: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "gpu"); got 'gpu' (leave it out so that any worker may run the task)`,
      },
    ]);
  });

  it("is kept on export, and exporting the export gives the same bytes", () => {
    const source = plan({ agent: "codex", model: "gpt-5-codex", fallback_agents: ["claude"], note: "x" }, [
      task("A", { agent: "claude", model: "claude-opus-4-1", required_tags: ["gpu"] }),
      task("B", { required_tags: [] }),
    ]);
    const first = parsePlanObject(source, "x");
    const text = exportPlan(first, first.tasks);
    const again = parsePlanFile(text, "export");
    expect(again).toEqual(first);
    expect(exportPlan(again, again.tasks)).toBe(text);
    const json = JSON.parse(text);
    expect(json).toMatchObject({
      agent: "codex",
      model: "gpt-5-codex",
      fallback_agents: ["claude"],
      note: "x",
    });
    expect(json.tasks[0]).toMatchObject({
      agent: "claude",
      model: "claude-opus-4-1",
      required_tags: ["gpu"],
    });
    expect(Object.keys(json.tasks[1])).not.toContain("required_tags");
  });
});
