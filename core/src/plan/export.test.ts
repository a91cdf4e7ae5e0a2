// biome-ignore lint/style/noRestrictedImports: tests read the plan fixtures from disk.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TaskSpec } from "../model.js";
import { canonicalJson } from "./canonical-json.js";
import { exportPlan } from "./export.js";
import { parsePlanFile, parsePlanObject } from "./parse-plan.js";

const PLANS = new URL("../../../test/fixtures/plans/", import.meta.url);
const fixtures = readdirSync(PLANS).filter((name) => name.endsWith(".json"));
const read = (name: string) => readFileSync(new URL(name, PLANS), "utf8");
const exportOf = (text: string) => {
  const plan = parsePlanFile(text, "plan.json");
  return exportPlan(plan, plan.tasks);
};

describe("exportPlan", () => {
  it.each(fixtures)("round-trips %s byte for byte", (name) => {
    const first = exportOf(read(name));
    const second = exportOf(first);
    expect(second).toBe(first);
    expect(exportOf(second)).toBe(first);
  });

  it.each(fixtures)("keeps everything %s holds", (name) => {
    const original = parsePlanFile(read(name), name);
    const again = parsePlanFile(exportPlan(original, original.tasks), "export");
    const byId = (tasks: readonly TaskSpec[]) => [...tasks].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect({ ...again, tasks: byId(again.tasks) }).toEqual({ ...original, tasks: byId(original.tasks) });
  });

  it("writes every task field, sorted keys, tasks by id, and a trailing newline", () => {
    const plan = parsePlanObject(
      {
        project: "Проект",
        plan_id: "p",
        zeta: 1,
        tasks: [
          { id: "B", status: "done", priority: "LOW", description: "второй", phase: "2" },
          { id: "A", status: "pending", priority: "high", description: "first", dependencies: [] },
        ],
      },
      "x",
    );
    expect(exportPlan(plan, plan.tasks)).toBe(`{
  "plan_id": "p",
  "project": "Проект",
  "tasks": [
    {
      "acceptance_criteria": [],
      "dependencies": [],
      "description": "first",
      "id": "A",
      "key_files": [],
      "prd_requirement": "",
      "priority": "high",
      "status": "PENDING",
      "test_steps": [],
      "version": 0
    },
    {
      "acceptance_criteria": [],
      "dependencies": [],
      "description": "второй",
      "id": "B",
      "key_files": [],
      "phase": "2",
      "prd_requirement": "",
      "priority": "low",
      "status": "DONE",
      "test_steps": [],
      "version": 0
    }
  ],
  "zeta": 1
}
`);
  });

  it("writes agent_instructions only when it has lines or kept values", () => {
    const base = { id: "p", name: "p", keptInstructions: {}, extra: {} };
    expect(exportPlan({ ...base, agentInstructions: { before: [], after: [] } }, [])).not.toContain(
      "agent_instructions",
    );
    const text = exportPlan({ ...base, agentInstructions: { before: ["read first"], after: [] } }, []);
    expect(JSON.parse(text).agent_instructions).toEqual({ before: ["read first"] });
    const kept = exportPlan({ ...base, agentInstructions: {}, keptInstructions: { retries: 3 } }, []);
    expect(JSON.parse(kept).agent_instructions).toEqual({ retries: 3 });
  });

  it("writes back every agent_instructions key of a plan written for another tool", () => {
    const name = "instructions-in-the-wild.tasks.json";
    const original = JSON.parse(read(name)).agent_instructions;
    const exported = JSON.parse(exportOf(read(name))).agent_instructions;
    expect(exported).toEqual({ ...original, style: [original.style] });
  });

  it("never lets an extra field shadow a known one", () => {
    const text = exportPlan(
      { id: "p", name: "n", agentInstructions: {}, keptInstructions: {}, extra: { plan_id: "x" } },
      [],
    );
    expect(JSON.parse(text).plan_id).toBe("p");
  });
});

describe("canonicalJson", () => {
  it("sorts integer-like keys as text, at every level", () => {
    expect(canonicalJson({ b: { "10": 1, "9": 2, a: 3 }, a: [] })).toBe(
      '{\n  "a": [],\n  "b": {\n    "10": 1,\n    "9": 2,\n    "a": 3\n  }\n}',
    );
  });

  it("sorts by code point, so astral characters come after the rest of the BMP", () => {
    expect(Object.keys(JSON.parse(canonicalJson({ "😀": 1, "\uff5e": 2 })))).toEqual(["\uff5e", "😀"]);
    expect(canonicalJson({ "😀": 1, "\uff5e": 2 }).indexOf("\uff5e")).toBeLessThan(
      canonicalJson({ "😀": 1, "\uff5e": 2 }).indexOf("😀"),
    );
  });

  it("keeps non-ASCII text and escapes only what JSON requires", () => {
    expect(canonicalJson(["é — ü", 'q"\n', {}])).toBe('[\n  "é — ü",\n  "q\\"\\n",\n  {}\n]');
  });
});
