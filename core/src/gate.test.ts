import { describe, expect, it } from "vitest";
import { evaluateGate, MIN_DESCRIPTION_LENGTH } from "./gate.js";

const good = {
  description: "Write the README quick start section",
  acceptanceCriteria: ["README has a quick start"],
  testSteps: ["grep -q 'Quick start' README.md"],
};

describe("evaluateGate", () => {
  it("allows a task with a description, criteria and test steps", () => {
    expect(evaluateGate(good)).toEqual({ kind: "ALLOW", missing: [], tooShort: [], reason: undefined });
  });

  it("counts the description after trimming, in characters", () => {
    const exact = "ж".repeat(MIN_DESCRIPTION_LENGTH);
    expect(evaluateGate({ ...good, description: `  ${exact}  ` }).kind).toBe("ALLOW");
    expect(evaluateGate({ ...good, description: `   ${exact.slice(1)}   ` })).toEqual({
      kind: "REJECT",
      missing: [],
      tooShort: ["description"],
      reason: "decision gate refused: description too short (19 characters, at least 20)",
    });
  });

  it("calls a description too short when it has text, and missing when it is blank", () => {
    expect(evaluateGate({ ...good, description: "short", testSteps: [] })).toEqual({
      kind: "REJECT",
      missing: ["test_steps"],
      tooShort: ["description"],
      reason: "decision gate refused: description too short (5 characters, at least 20); missing test_steps",
    });
    expect(evaluateGate({ ...good, description: "   " })).toMatchObject({
      missing: ["description"],
      tooShort: [],
    });
  });

  it("reports every missing part, in the fixed order", () => {
    expect(evaluateGate({ description: "", acceptanceCriteria: [], testSteps: [] })).toEqual({
      kind: "REJECT",
      missing: ["description", "acceptance_criteria", "test_steps"],
      tooShort: [],
      reason: "decision gate refused: missing description, acceptance_criteria, test_steps",
    });
    expect(evaluateGate({ ...good, acceptanceCriteria: [], testSteps: [] }).missing).toEqual([
      "acceptance_criteria",
      "test_steps",
    ]);
    expect(evaluateGate({ ...good, testSteps: [] }).reason).toBe("decision gate refused: missing test_steps");
  });
});
