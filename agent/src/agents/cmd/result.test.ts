import { classifyAgentRun, formatUsd } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { cmdResult } from "./result.js";

const judge = (stdout: string, exitCode: number | null, signal: string | null = null) =>
  classifyAgentRun({
    stdout,
    stderr: "",
    exitCode,
    signal,
    timedOut: false,
    result: cmdResult({ stdout, exitCode }) ?? null,
    resultRule: "exit-code",
  });

describe("cmdResult", () => {
  it("takes the cost from a last line {cost_usd} and leaves that line out of the text", () => {
    const stdout = 'wrote a.txt\n{"cost_usd": 0.01}\n\n';
    expect(cmdResult({ stdout, exitCode: 0 })).toEqual({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "wrote a.txt",
      total_cost_usd: 0.01,
    });
    const outcome = judge(stdout, 0);
    expect(outcome).toMatchObject({ ok: true, resultText: "wrote a.txt" });
    expect(formatUsd(outcome.costMicroUsd)).toBe("0.010000");
  });

  it.each([
    ["garbage last line", "done\n{not json", "done\n{not json"],
    ["a JSON line without cost_usd", 'done\n{"cost": 1}', 'done\n{"cost": 1}'],
    ["a negative cost", 'done\n{"cost_usd": -1}', 'done\n{"cost_usd": -1}'],
    ["a cost that is a string", 'done\n{"cost_usd": "1"}', 'done\n{"cost_usd": "1"}'],
    ["a cost line that is not the last", '{"cost_usd": 1}\ndone', '{"cost_usd": 1}\ndone'],
    ["no output at all", "", ""],
  ])("counts no cost for %s, and still succeeds on exit 0", (_name, stdout, text) => {
    const result = cmdResult({ stdout, exitCode: 0 });
    expect(result).toMatchObject({ result: text });
    expect(result).not.toHaveProperty("total_cost_usd");
    expect(judge(stdout, 0)).toMatchObject({ ok: true, costMicroUsd: 0 });
  });

  it("fails on a non-zero exit, keeping the cost it printed", () => {
    const outcome = judge('oops\n{"cost_usd":0.5}', 3);
    expect(outcome).toMatchObject({ ok: false, reason: "nonzero_exit", costMicroUsd: 500_000 });
  });

  it("has no result when a signal ended the command: the classifier says killed", () => {
    expect(cmdResult({ stdout: "partial", exitCode: null })).toBeUndefined();
    expect(judge("partial", null, "SIGKILL")).toMatchObject({ ok: false, reason: "killed" });
  });
});
