import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import type { AgentRunReport } from "./outcome.js";

const claudeLine = JSON.stringify({
  type: "result",
  subtype: "success",
  is_error: false,
  result: "Done. <promise>COMPLETE</promise>",
  total_cost_usd: 0.5,
});

const run = (over: Partial<AgentRunReport>): AgentRunReport => ({
  exitCode: 0,
  signal: null,
  stdout: "",
  stderr: "",
  timedOut: false,
  ...over,
});

describe("classifyAgentRun with an adapter's result", () => {
  it("judges the adapter's result, not a Claude result object the output happens to hold", () => {
    const adapter = { type: "result", subtype: "success", is_error: false, result: "no marker here" };
    expect(classifyAgentRun(run({ stdout: claudeLine, result: adapter }))).toMatchObject({
      ok: false,
      reason: "no_marker",
      costMicroUsd: 0,
    });
    // `null`: the adapter found no result; the run is judged by its exit and output alone.
    expect(classifyAgentRun(run({ stdout: claudeLine, result: null }))).toMatchObject({
      ok: false,
      reason: "parse_error",
    });
    // Absent: Claude Code's result object, as before.
    expect(classifyAgentRun(run({ stdout: claudeLine }))).toMatchObject({ ok: true, costMicroUsd: 500_000 });
  });

  it("with the exit-code rule succeeds on exit 0 whatever the text, and fails otherwise", () => {
    const result = { type: "result", subtype: "success", is_error: false, result: "" };
    expect(classifyAgentRun(run({ result, resultRule: "exit-code" }))).toMatchObject({ ok: true });
    expect(classifyAgentRun(run({ exitCode: 2, result, resultRule: "exit-code" }))).toMatchObject({
      ok: false,
      reason: "nonzero_exit",
    });
    expect(
      classifyAgentRun(
        run({ timedOut: true, exitCode: null, signal: "SIGKILL", result: null, resultRule: "exit-code" }),
      ),
    ).toMatchObject({
      ok: false,
      reason: "timeout",
    });
  });
});
