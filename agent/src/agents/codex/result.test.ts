import { readFileSync } from "node:fs";
import { classifyAgentRun, type RawAgentResult } from "@whilly/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCodexAdapter } from "./adapter.js";
import { foldCodexRun } from "./result.js";

// What the real Codex CLI 0.171.0 printed against the fake Responses API (scripts/record-codex-fixtures.mjs).
const FIXTURES = new URL("../../../../test/fixtures/codex/", import.meta.url);
const adapter = createCodexAdapter({});
// The usage-limit fixture was recorded at 16:41 UTC and says "Try again at 5:41 PM." (the host's zone, UTC).
const NOW = new Date("2026-12-02T16:41:19Z");

type Recorded = { readonly stdout: string; readonly stderr: string; readonly exitCode: number | null };

function recorded(name: string): Recorded {
  const meta = JSON.parse(readFileSync(new URL(`${name}.meta.json`, FIXTURES), "utf8")) as Recorded;
  return {
    stdout: readFileSync(new URL(`${name}.jsonl`, FIXTURES), "utf8"),
    stderr: meta.stderr,
    exitCode: meta.exitCode,
  };
}

/** The shared classifier's verdict on a run, reading the adapter's result as Claude Code's result object. */
function judge(run: Recorded, result: RawAgentResult | undefined = adapter.result(run)) {
  return classifyAgentRun({
    ...run,
    stdout: result === undefined ? run.stdout : JSON.stringify(result),
    signal: null,
    timedOut: false,
    now: NOW,
    hostZone: "UTC",
  });
}

describe("foldCodexRun on recorded Codex output", () => {
  it("happy path: success with the marker, the thread id, tokens of the last turn.completed, cost from the table", () => {
    const run = recorded("happy");
    const result = adapter.result(run);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Created hello.txt.\n<promise>COMPLETE</promise>",
      num_turns: 1,
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      usage: {
        input_tokens: 1100,
        cache_read_input_tokens: 1400,
        cache_creation_input_tokens: 0,
        output_tokens: 60,
      },
      codex_usage: {
        input_tokens: 2500,
        cached_input_tokens: 1400,
        output_tokens: 60,
        reasoning_output_tokens: 12,
      },
      errors: [],
    });
    // gpt-5-codex: 1100 × $1.25 + 1400 × $0.125 + 60 × $10 per million tokens.
    expect(result?.total_cost_usd).toBeCloseTo(0.00215, 10);
    expect(result?.codex_warnings).toEqual([
      expect.stringMatching(/^Model metadata for `gpt-5-codex` not found/),
    ]);
    const outcome = judge(run, result);
    expect(outcome).toMatchObject({
      ok: true,
      costMicroUsd: 2150,
      numTurns: 1,
      message: "the agent completed the task",
    });
    expect(outcome.usage).toEqual({
      inputTokens: 1100,
      outputTokens: 60,
      cacheReadTokens: 1400,
      cacheCreationTokens: 0,
    });
  });

  it.each([
    ["no-marker", "no_marker"],
    ["command-fails", "no_marker"],
    ["http-500", "error_subtype"],
    ["stream-cut", "error_subtype"],
    ["second-turn-cut", "error_subtype"],
  ])("%s fails as %s", (name, reason) => {
    const outcome = judge(recorded(name));
    expect(outcome.ok).toBe(false);
    expect(outcome.reason).toBe(reason);
  });

  it("only a marker that ends the final agent message counts, not one quoted in an earlier message", () => {
    expect(judge(recorded("talk-then-work")).ok).toBe(true);
    const earlyOnly = recorded("talk-then-work").stdout.replace(
      /All done[^"]*COMPLETE<\/promise>\\n/,
      "Stopped.",
    );
    expect(judge({ ...recorded("talk-then-work"), stdout: earlyOnly }).reason).toBe("no_marker");
  });

  it("a failed turn names its error, and costs nothing when Codex reported no usage", () => {
    const outcome = judge(recorded("http-500"));
    expect(outcome.message).toBe(
      "the agent ended with error_during_execution: We’re currently experiencing high demand, which may cause temporary errors.",
    );
    expect(outcome.costMicroUsd).toBe(0);
    expect(outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a usage limit is rate_limited until the time Codex names, read in the host's zone", () => {
    const outcome = judge(recorded("usage-limit"));
    expect(outcome.reason).toBe("rate_limited");
    expect(outcome.limited).toEqual({
      message: "You’ve hit your usage limit. Try again at 5:41 PM.",
      until: new Date("2026-12-02T17:41:00Z"),
    });
    expect(judge(recorded("usage-limit-later")).limited).toEqual({
      message: "You’ve hit your usage limit. Try again later.",
      until: undefined,
    });
  });

  it.each(["rate-limit-429", "rate-limit-failed"])("%s is rate_limited", (name) => {
    expect(judge(recorded(name)).reason).toBe("rate_limited");
  });

  it("a rate limit's 'try again in 2.4s' sets its reset", () => {
    expect(judge(recorded("rate-limit-failed")).limited?.until).toEqual(new Date(NOW.getTime() + 2400));
  });

  it.each(["auth-401", "missing-key"])("%s: the agent is unavailable for its credentials", (name) => {
    const outcome = judge(recorded(name));
    expect(outcome).toMatchObject({ reason: "agent_unavailable", unavailable: "auth" });
    expect(adapter.unavailableHints.auth).toContain("codex login");
  });

  it("the tool-less answer is an answer: any non-empty text passes", () => {
    const run = recorded("answer");
    const outcome = classifyAgentRun({
      ...run,
      stdout: JSON.stringify(adapter.result(run)),
      signal: null,
      timedOut: false,
      resultRule: "answer",
    });
    expect(outcome).toMatchObject({ ok: true, resultText: '{"tasks": []}' });
  });
});

describe("foldCodexRun on output that is cut, noisy or garbage", () => {
  const happy = recorded("happy");

  it("output cut in the middle of a line is a failure, never a success", () => {
    const cut = happy.stdout.slice(0, happy.stdout.lastIndexOf('"usage"'));
    const result = adapter.result({ ...happy, stdout: cut });
    expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(result?.errors).toContain("Codex's output ends in the middle of an event: the run was cut off");
    expect(judge({ ...happy, stdout: cut }).ok).toBe(false);
  });

  it("output that stops after turn.started (the process was killed) is a failure", () => {
    const stopped = happy.stdout.split("\n").slice(0, 5).join("\n");
    expect(adapter.result({ ...happy, stdout: `${stopped}\n` })).toMatchObject({
      is_error: true,
      errors: ["Codex's output ends before its turn completed"],
      result: "Codex's output ends before its turn completed",
    });
  });

  it("every prefix of a successful run that lacks its turn.completed line is no success", () => {
    const end = happy.stdout.lastIndexOf("}") + 1;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: end - 1 }), (at) => {
        const stdout = happy.stdout.slice(0, at);
        expect(judge({ ...happy, stdout }).ok).toBe(false);
      }),
    );
  });

  it("reads past banners, log lines, arrays and objects without a type", () => {
    const noisy = [
      "Now using node v20.19.0 (npm v10.8.2)",
      "[]",
      '{"no":"type"}',
      "2026-12-02T16:34:37Z INFO codex_core: starting",
      happy.stdout.trimEnd(),
      "",
    ].join("\n");
    expect(judge({ ...happy, stdout: noisy }).ok).toBe(true);
  });

  it("output without a final newline is still read", () => {
    expect(judge({ ...happy, stdout: happy.stdout.trimEnd() }).ok).toBe(true);
  });

  it.each([
    ["nothing", ""],
    ["text only", "Error: something broke\n"],
    ["JSON that is no event", '[1,2]\n{"a":1}\nnull\n"x"\n'],
  ])("%s: no result, so the classifier judges by the exit code", (_name, stdout) => {
    expect(foldCodexRun({ stdout, stderr: "", exitCode: 1 }, "gpt-5-codex", new Map())).toBeUndefined();
  });

  it("takes the last turn.completed usage: Codex reports the thread's running total", () => {
    const turn = (input: number) =>
      `{"type":"turn.started"}\n{"type":"turn.completed","usage":{"input_tokens":${input},"cached_input_tokens":0,"output_tokens":10}}`;
    const stdout = `${turn(1000)}\n{"type":"item.completed","item":{"type":"agent_message","text":"ok"}}\n${turn(3000)}\n`;
    expect(adapter.result({ stdout, stderr: "", exitCode: 0 })).toMatchObject({
      num_turns: 2,
      usage: { input_tokens: 3000, output_tokens: 10 },
    });
  });

  it("retries announced before a completed turn are warnings, not errors", () => {
    const retry = '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion)"}';
    const lines = happy.stdout.split("\n");
    lines.splice(3, 0, retry);
    const result = adapter.result({ ...happy, stdout: lines.join("\n") });
    expect(result).toMatchObject({ subtype: "success", errors: [] });
    expect(result?.codex_warnings).toContain("Reconnecting... 2/5 (stream disconnected before completion)");
  });

  it("never throws on arbitrary text or shuffled events, and succeeds only with a completed turn", () => {
    const lines = happy.stdout.split("\n");
    const odd = fc.constantFrom(
      "{",
      "}",
      '{"type":',
      '{"type":"turn.completed"',
      "\u2028",
      "\uFFFD",
      "\r",
      "\u0000",
    );
    const line = fc.oneof(fc.constantFrom(...lines), fc.string(), odd);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.integer({ min: -1, max: 255 }), (parts, exitCode) => {
        const stdout = parts.join("\n");
        const result = adapter.result({ stdout, stderr: stdout, exitCode });
        if (result?.subtype === "success") expect(stdout).toContain('"type":"turn.completed"');
      }),
      { numRuns: 300 },
    );
  });
});
