import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type AgentOutcome, classifyAgentRun, type RawAgentResult } from "@whilly/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadGeminiPrices } from "./prices.js";
import { geminiResult } from "./result.js";

// Output of the real Gemini CLI 0.61.0 against test/fake-gemini (test/fake-gemini/scripts/record-fixtures.ts).
type Recorded = { exit_code: number | null; stdout: string; stderr: string };
const fixtures = fileURLToPath(new URL("../../../../test/fixtures/gemini/", import.meta.url));
const recorded = (name: string): Recorded =>
  JSON.parse(readFileSync(`${fixtures}${name}.json`, "utf8")) as Recorded;
const prices = loadGeminiPrices({});

function fold(run: { stdout: string; stderr: string; exit_code: number | null }): RawAgentResult | undefined {
  return geminiResult({ stdout: run.stdout, stderr: run.stderr, exitCode: run.exit_code }, prices);
}

/** The shared classifier's verdict on the adapter's result (given as the output it reads the result from). */
function classify(run: Recorded, signal: string | null = null): AgentOutcome {
  const result = fold(run);
  return classifyAgentRun({
    exitCode: run.exit_code,
    signal,
    stdout: result === undefined ? run.stdout : JSON.stringify(result),
    stderr: run.stderr,
    timedOut: false,
    now: new Date("2026-12-02T12:00:00Z"),
  });
}

describe("geminiResult on recorded Gemini CLI output", () => {
  it("folds a finished task into a success: final text, turns, tokens with thinking, cost", () => {
    const run = recorded("happy");
    const result = fold(run);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "hello.txt holds hi.\n\n<promise>COMPLETE</promise>",
      num_turns: 3,
      api_error_status: null,
      usage: { input_tokens: 11300, cache_read_input_tokens: 16000, output_tokens: 82 },
    });
    expect(result?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // 11300 × 1.25 + 16000 × 0.125 + 82 × 10 micro-USD.
    expect(result?.total_cost_usd).toBe(0.016945);
    const outcome = classify(run);
    expect(outcome).toMatchObject({
      ok: true,
      numTurns: 3,
      costMicroUsd: 16945,
      message: "the agent completed the task",
    });
    expect(outcome.usage).toEqual({
      inputTokens: 11300,
      outputTokens: 82,
      cacheReadTokens: 16000,
      cacheCreationTokens: 0,
    });
  });

  it("fails a final text without the completion marker", () => {
    expect(classify(recorded("no-marker"))).toMatchObject({ ok: false, reason: "no_marker", numTurns: 1 });
  });

  it("sees quota errors (per-minute and daily) as a provider limit, not the task's failure", () => {
    for (const name of ["quota-429", "quota-daily"]) {
      const run = recorded(name);
      expect(fold(run)).toMatchObject({ is_error: true, api_error_status: 429 });
      const outcome = classify(run);
      expect(outcome.reason, name).toBe("rate_limited");
      expect(outcome.limited?.message, name).toMatch(/quota/i);
    }
  });

  it("sees refused credentials (401, 403, an invalid key, no key at all) as the agent being unavailable", () => {
    for (const name of ["auth-401", "auth-403", "auth-key-invalid", "no-key"]) {
      const outcome = classify(recorded(name));
      expect([name, outcome.reason, outcome.unavailable]).toEqual([name, "agent_unavailable", "auth"]);
    }
    expect(fold(recorded("no-key"))?.result).toMatch(/must specify the GEMINI_API_KEY/);
  });

  it("fails a server error and a stream cut mid-way as ordinary errors", () => {
    const server = fold(recorded("server-500"));
    expect(server).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      api_error_status: 500,
    });
    expect(classify(recorded("server-500"))).toMatchObject({ ok: false, reason: "error_subtype" });
    const cut = classify(recorded("cut"));
    expect(cut).toMatchObject({ ok: false, reason: "error_subtype", resultText: "Let me st" });
    expect(cut.errors[0]).toContain("terminated");
  });

  it("reads the session's turn limit as max_turns", () => {
    expect(fold(recorded("max-turns"))).toMatchObject({ subtype: "error_max_turns", is_error: true });
    expect(classify(recorded("max-turns"))).toMatchObject({ ok: false, reason: "max_turns" });
  });

  it("skips noise lines around and between the events", () => {
    const run = recorded("happy");
    const lines = run.stdout.split("\n");
    const noisy = [
      "Loaded cached credentials.",
      "\u001b[33mnvm: using node v20\u001b[0m",
      ...lines.slice(0, 3),
      '{"type": "message", "role": "assistant", "content": "cut',
      "[1, 2, 3]",
      '{"no_type": true}',
      ...lines.slice(3),
      "Goodbye.",
    ].join("\n");
    expect(fold({ ...run, stdout: noisy })).toEqual(fold(run));
  });

  it("gives no result for output cut off before the result event, so a killed run never passes", () => {
    const run = recorded("happy");
    const cut = run.stdout.slice(0, run.stdout.lastIndexOf('{"type":"result"'));
    expect(fold({ ...run, stdout: cut })).toBeUndefined();
    const outcome = classify({ ...run, stdout: cut, exit_code: null }, "SIGKILL");
    expect(outcome).toMatchObject({ ok: false, reason: "killed" });
  });

  it("never throws and never succeeds on a prefix of a run's output", () => {
    const { stdout } = recorded("happy");
    const end = stdout.trimEnd().length;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: end - 1 }), (at) => {
        const outcome = classify({ exit_code: 0, stdout: stdout.slice(0, at), stderr: "" });
        expect(outcome.ok).toBe(false);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.string(), fc.option(fc.integer({ min: -1, max: 300 })), (text, exitCode) => {
        fold({ stdout: text, stderr: text, exit_code: exitCode });
        fold({ stdout: `{"type":"result","stats":${text}}\n${text}`, stderr: "", exit_code: exitCode });
      }),
    );
  });

  it("reads odd shapes without throwing: wrong types, no stats, a non-delta message", () => {
    const stdout = [
      '{"type":"init","session_id":42}',
      '{"type":"message","role":"assistant","content":"partial","delta":true}',
      '{"type":"message","role":"assistant","content":"Whole text <promise>COMPLETE</promise>"}',
      '{"type":"result","status":"success","stats":{"models":{"gemini-9-ultra":{"input_tokens":"many","output_tokens":5,"total_tokens":5}}}}',
    ].join("\n");
    const result = fold({ stdout, stderr: "", exit_code: 0 });
    expect(result).toMatchObject({
      subtype: "success",
      result: "Whole text <promise>COMPLETE</promise>",
      session_id: null,
      total_cost_usd: 0,
      unpriced_models: ["gemini-9-ultra"],
      usage: { input_tokens: 0, output_tokens: 5 },
    });
  });
});
