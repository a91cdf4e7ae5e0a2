import { describe, expect, it } from "vitest";
import { buildPrompt, COMPLETION_MARKER } from "./build-prompt.js";
import { buildFollowUpPrompt } from "./feedback.js";

const task = {
  id: "DEMO-003",
  priority: "medium" as const,
  prdRequirement: "demo-step-3",
  description: "Write a smoke test.",
  dependencies: ["DEMO-001"],
  acceptanceCriteria: ["the test file exists", "it passes"],
  testSteps: ["test -s tests/test_demo_smoke.py", "pytest -q"],
  keyFiles: ["tests/test_demo_smoke.py"],
};
const plan = {
  id: "demo",
  name: "Demo project",
  agentInstructions: { before: ["Read progress.txt first."], after: ["Never push to main."] },
};

describe("buildPrompt", () => {
  const prompt = buildPrompt({ plan, task });
  const lines = prompt.split("\n");

  it("puts the before lines first and the after lines last", () => {
    expect(lines[0]).toBe("Read progress.txt first.");
    expect(lines[lines.length - 1]).toBe("Never push to main.");
  });

  it("has a greppable task id line and the plan's name and id", () => {
    expect(lines).toContain("Task id: DEMO-003");
    expect(prompt.match(/^Task id: (.+)$/m)?.[1]).toBe("DEMO-003");
    expect(lines).toContain("Plan: Demo project (plan id: demo)");
    expect(lines).toContain("Priority: medium");
    expect(lines).toContain("PRD requirement: demo-step-3");
  });

  it("lists the task's parts in order, numbered where they are steps", () => {
    const order = [
      "Write a smoke test.",
      "These tasks are already DONE; build on their results and do not redo them:",
      "- DEMO-001",
      "1. the test file exists",
      "2. it passes",
      "1. test -s tests/test_demo_smoke.py",
      "2. pytest -q",
      "- tests/test_demo_smoke.py",
      COMPLETION_MARKER,
    ];
    const positions = order.map((line) => lines.indexOf(line));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("tells the agent when, and only when, to print the marker", () => {
    expect(COMPLETION_MARKER).toBe("<promise>COMPLETE</promise>");
    expect(prompt).toMatch(/only on task DEMO-003/);
    expect(prompt).toMatch(/very last line/);
    expect(prompt).toMatch(/Otherwise describe what is wrong or unfinished, and do not print that line/);
  });

  it("leaves out empty optional parts and marks a missing description", () => {
    const bare = buildPrompt({
      plan: { id: "p", name: "p", agentInstructions: { before: [], after: [] } },
      task: { ...task, prdRequirement: "", description: "  ", dependencies: [], keyFiles: [], testSteps: [] },
    });
    expect(bare.startsWith("You are a coding agent")).toBe(true);
    expect(bare).toContain("Plan: p\n");
    expect(bare).not.toContain("PRD requirement");
    expect(bare).not.toContain("## Dependencies");
    expect(bare).not.toContain("## Key files");
    expect(bare).toContain("(no description given)");
    expect(bare).toContain("## Test steps\nRun each step and make sure it passes:\n(none given)");
    expect(bare.trimEnd().endsWith("do not print that line anywhere.")).toBe(true);
  });

  it("places every instruction key: fixed keys where they belong, the others sorted under their names", () => {
    const instructions = {
      after: ["AFTER"],
      zeta: ["ZETA"],
      before_finish: ["BEFORE FINISH"],
      during_work: ["DURING WORK"],
      alpha: ["ALPHA 1", "ALPHA 2"],
      before: ["BEFORE"],
      before_start: ["BEFORE START"],
      empty: [],
    };
    const full = buildPrompt({ plan: { ...plan, agentInstructions: instructions }, task }).split("\n");
    const order = [
      "BEFORE START",
      "BEFORE",
      "Task id: DEMO-003",
      "Write a smoke test.",
      "- DEMO-001",
      "DURING WORK",
      "## Acceptance criteria",
      "## Test steps",
      "## Key files",
      "## alpha",
      "ALPHA 1",
      "ALPHA 2",
      "## zeta",
      "ZETA",
      "## Rules",
      COMPLETION_MARKER,
      "BEFORE FINISH",
      "AFTER",
    ];
    const positions = order.map((line) => full.indexOf(line));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(full[0]).toBe("BEFORE START");
    expect(full.at(-1)).toBe("AFTER");
    expect(full).not.toContain("## empty");
    expect(full).not.toContain("## before_start");
  });

  it("keeps multi-line items inside their entry", () => {
    const prompt2 = buildPrompt({ plan, task: { ...task, testSteps: ["line one\nline two"] } });
    expect(prompt2).toContain("1. line one\n   line two");
  });
});

describe("buildPrompt on a retry", () => {
  const failure = {
    attempt: 1,
    reason: "verification_failed",
    step: "pytest -q",
    exit_code: 1,
    output_tail: "E   assert 1 == 2\nFAILED tests/test_demo_smoke.py::test_sum\n```\nstray fence",
  };

  it("names the attempt after the task id", () => {
    const lines = buildPrompt({ plan, task, attempt: { number: 2, max: 3 } }).split("\n");
    expect(lines.indexOf("Attempt: 2 of 3")).toBe(lines.indexOf("Task id: DEMO-003") + 1);
    expect(buildPrompt({ plan, task })).not.toMatch(/^Attempt:/m);
  });

  it("says what went wrong: reason, failing step, exit code, and the output in a fence it cannot close", () => {
    const prompt = buildPrompt({ plan, task, attempt: { number: 2, max: 3 }, previousFailure: failure });
    const lines = prompt.split("\n");
    const heading = lines.indexOf("## What went wrong in the previous attempt");
    expect(heading).toBeGreaterThan(lines.indexOf("Attempt: 2 of 3"));
    expect(heading).toBeLessThan(lines.indexOf("## Description"));
    expect(lines[heading + 1]).toBe(
      "Attempt 1 failed: verification_failed (a check whilly ran on your work failed).",
    );
    expect(lines).toContain("Failing step: pytest -q");
    expect(lines).toContain("Exit code: 1");
    // The tail holds a run of three backticks, so the fence is four long and closes after the tail.
    const open = lines.indexOf("````text");
    expect(lines.slice(open + 1, open + 5).join("\n")).toBe(failure.output_tail);
    expect(lines[open + 5]).toBe("````");
  });

  it("tells a reason it does not know as it is, and lists manual steps", () => {
    const prompt = buildPrompt({
      plan,
      task,
      previousFailure: { attempt: 2, reason: "odd_reason", manual_steps: ["manual: look at it"] },
    });
    expect(prompt).toContain("Attempt 2 failed: odd_reason.\n");
    expect(prompt).toContain("These steps are manual; whilly did not run them:\n- manual: look at it");
    expect(prompt).not.toContain("Exit code");
  });
});

describe("buildFollowUpPrompt", () => {
  it("is short: the task and attempt lines, what went wrong, and when to print the marker", () => {
    const prompt = buildFollowUpPrompt({
      taskId: "DEMO-003",
      attempt: { number: 2, max: 3 },
      previousFailure: { attempt: 1, reason: "no_marker", output_tail: "I think it works." },
    });
    const lines = prompt.split("\n");
    expect(lines.slice(0, 2)).toEqual(["Task id: DEMO-003", "Attempt: 2 of 3"]);
    expect(prompt).toContain(
      `Attempt 1 failed: no_marker (the final reply did not end with ${COMPLETION_MARKER}).`,
    );
    expect(prompt).toContain("```text\nI think it works.\n```");
    expect(lines).toContain(COMPLETION_MARKER);
    expect(prompt).not.toContain("## Description");
    expect(prompt.length).toBeLessThan(1200);
  });
});
