import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import { agentOutcomeDetail } from "./detail.js";
import { limitResetTime, providerLimit } from "./limits.js";
import type { AgentRunReport } from "./outcome.js";

// 2026-12-01 22:47 UTC: 17:47 in New York (EST), 23:47 in Berlin (CET), 04:17 on Dec 2 in Kolkata.
const NOW = new Date("2026-12-01T22:47:00Z");

describe("limitResetTime: the next such wall time in the named zone", () => {
  it.each([
    ["You've hit your limit · resets 8pm (America/New_York)", "2026-12-02T01:00:00.000Z"],
    ["You've hit your limit · resets 5pm (America/New_York)", "2026-12-02T22:00:00.000Z"],
    ["You've hit your limit · resets 1:30pm (Asia/Calcutta)", "2026-12-02T08:00:00.000Z"],
    ["You've hit your limit · resets 4am (Asia/Kolkata)", "2026-12-02T22:30:00.000Z"],
    ["You've hit your limit · resets 7am (UTC)", "2026-12-02T07:00:00.000Z"],
    ["You've hit your limit · resets 12am (UTC)", "2026-12-02T00:00:00.000Z"],
    ["You've hit your limit · resets 12pm (UTC)", "2026-12-02T12:00:00.000Z"],
    ["You've hit your limit · resets Dec 2, 3:30pm (Europe/Berlin)", "2026-12-02T14:30:00.000Z"],
    ["You've hit your limit · resets Mar 15 at 12pm (Europe/London)", "2027-03-15T12:00:00.000Z"],
    ["You've hit your limit · resets Jul 4 at 9am (America/New_York)", "2027-07-04T13:00:00.000Z"],
    ["You've hit your weekly limit · resets Dec 5 at 9am (America/Los_Angeles)", "2026-12-05T17:00:00.000Z"],
    ["Limit reached · resets 5pm (Europe/Berlin) · /upgrade to Max", "2026-12-02T16:00:00.000Z"],
    ["Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).", "2026-12-02T18:00:00.000Z"],
    ["Claude AI usage limit reached|1749924000", "2025-06-14T18:00:00.000Z"],
    ["resets 20:00 (UTC)", "2026-12-02T20:00:00.000Z"],
    ["You've hit your session limit · resets 3:30pm (UTC)", "2026-12-02T15:30:00.000Z"],
    ["You've hit your Opus limit · resets Dec 8, 5pm (Asia/Tokyo)", "2026-12-08T08:00:00.000Z"],
    ["You've hit your limit · resets Jan 3, 2027, 9am (UTC)", "2027-01-03T09:00:00.000Z"],
    ["You're out of extra usage · resets 11pm (Europe/London)", "2026-12-01T23:00:00.000Z"],
  ])("%s → %s", (text, iso) => {
    expect(limitResetTime(text, NOW)?.toISOString()).toBe(iso);
  });

  it.each([
    ["You’ve hit your usage limit. Try again at 6:06 PM.", "2026-12-02T18:06:00.000Z"],
    ["You’ve hit your usage limit. Try again at 11:50 PM.", "2026-12-01T23:50:00.000Z"],
    ["You’ve hit your usage limit. Try again at Dec 3rd, 2026 6:06 PM.", "2026-12-03T18:06:00.000Z"],
    ["Rate limit reached for gpt-5-codex. Please try again in 2.4s.", "2026-12-01T22:47:02.400Z"],
    ["rate limit exceeded: try again in 6m0s", "2026-12-01T22:53:00.000Z"],
    ["Please try again in 20ms.", "2026-12-01T22:47:00.020Z"],
    ["limit resets in 3 hours 20 minutes", "2026-12-02T02:07:00.000Z"],
    ["try again in 1h, 2m and 3s", "2026-12-01T23:49:03.000Z"],
  ])("Codex and OpenAI: %s → %s", (text, iso) => {
    expect(limitResetTime(text, NOW, "UTC")?.toISOString()).toBe(iso);
  });

  it.each(["try again in a moment", "try again in 0s", "Try again later."])("no reset time in %s", (text) => {
    expect(limitResetTime(text, NOW, "UTC")).toBeUndefined();
  });

  it("reads a time without a zone in the host's zone", () => {
    const text = "Claude Max usage limit reached. Your limit will reset at 12am.";
    expect(limitResetTime(text, NOW, "Europe/Berlin")?.toISOString()).toBe("2026-12-01T23:00:00.000Z");
    expect(limitResetTime("Session limit reached ∙ resets 10am", NOW, "UTC")?.toISOString()).toBe(
      "2026-12-02T10:00:00.000Z",
    );
  });

  it("honours daylight saving on the day of the reset, not today's offset", () => {
    // New York moves to EDT (UTC-4) on 2027-03-14; a reset on the 15th is at 16:00 UTC, not 17:00.
    const march = new Date("2027-03-13T20:00:00Z");
    const at = limitResetTime("resets Mar 15 at 12pm (America/New_York)", march);
    expect(at?.toISOString()).toBe("2027-03-15T16:00:00.000Z");
  });

  it.each([
    ["no time at all", "You've hit your limit"],
    ["a zone Intl does not know", "Limit reached · resets 5pm (Etc/Unknown)"],
    ["an impossible hour", "resets 13pm (UTC)"],
    ["an impossible minute", "resets 3:75pm (UTC)"],
  ])("none for %s", (_name, text) => {
    expect(limitResetTime(text, NOW)).toBeUndefined();
  });
});

describe("providerLimit", () => {
  const result = (extra: Record<string, unknown>) => ({ type: "result", is_error: true, ...extra });

  it.each([
    [
      "HTTP 429 after retries",
      result({ api_error_status: 429 }),
      "API Error: Request rejected (429) · slow down",
    ],
    ["HTTP 529", result({ api_error_status: 529 }), "API Error: 529 overloaded. This is a server-side issue"],
    ["an overloaded_error type", result({ api_error_type: "overloaded_error" }), "API Error: upstream busy"],
    [
      "429 by text alone (older CLI)",
      result({}),
      "API Error: Request rejected (429) · mock injected HTTP 429",
    ],
    ["529 by text alone", result({}), "API Error: 529 mock injected HTTP 529."],
    [
      "a usage limit with a 200",
      result({ api_error_status: null }),
      "You've hit your limit · resets 8pm (UTC)",
    ],
  ])("limited: %s", (_name, json, text) => {
    expect(providerLimit(json, [text], NOW)).toMatchObject({ message: text });
  });

  it.each([
    ["HTTP 500 worded overloaded", result({ api_error_status: 500 }), "API Error: 500 overloaded"],
    ["a usage warning", result({}), "You've used 97% of your session limit · resets 11am (Europe/London)"],
    ["a timeout", result({}), "Request timed out"],
  ])("not limited: %s", (_name, json, text) => {
    expect(providerLimit(json, [text], NOW)).toBeUndefined();
  });

  it.each([
    ["Codex's usage limit", "You’ve hit your usage limit. Try again later."],
    ["Codex's retries given up on a 429", "exceeded retry limit, last status: 429 Too Many Requests"],
    [
      "Codex's rate limit (response.failed)",
      "rate limit exceeded: Rate limit reached. Please try again in 1.5s.",
    ],
    ["OpenAI's error code", "unexpected status 429: rate_limit_exceeded"],
  ])("limited: %s", (_name, text) => {
    expect(providerLimit(result({}), [text], NOW)).toMatchObject({ message: text });
  });

  it("Codex's usage limit counts without a result JSON, with its reset in the host's local time", () => {
    const text = "You’ve hit your usage limit. Try again at 6:06 PM.";
    expect(providerLimit(undefined, [text], NOW, "UTC")).toEqual({
      message: text,
      until: new Date("2026-12-02T18:06:00Z"),
    });
    expect(providerLimit(undefined, ['{"type":"usage_limit_reached"}'], NOW)).toBeDefined();
  });

  it("without a result JSON, only a usage-limit message counts", () => {
    expect(providerLimit(undefined, ["Claude AI usage limit reached|1749924000"], NOW)?.until).toEqual(
      new Date(1749924000 * 1000),
    );
    expect(providerLimit(undefined, ["API Error: 429"], NOW)).toBeUndefined();
  });
});

describe("classifyAgentRun: provider limits", () => {
  const report = (
    json: Record<string, unknown>,
    overrides: Partial<AgentRunReport> = {},
  ): AgentRunReport => ({
    exitCode: 1,
    signal: null,
    stdout: `${JSON.stringify({ type: "result", subtype: "success", is_error: true, ...json })}\n`,
    stderr: "",
    timedOut: false,
    now: NOW,
    ...overrides,
  });

  it("a 429 storm the CLI gave up on is rate_limited, with no reset time", () => {
    const outcome = classifyAgentRun(
      report({ api_error_status: 429, result: "API Error: Request rejected (429) · mock injected HTTP 429" }),
    );
    expect(outcome).toMatchObject({ ok: false, reason: "rate_limited" });
    expect(outcome.limited).toEqual({
      message: "API Error: Request rejected (429) · mock injected HTTP 429",
      until: undefined,
    });
    expect(agentOutcomeDetail(outcome)).toMatchObject({ reason: "rate_limited", limited_until: null });
  });

  it("a usage limit carries its reset time, in the message and the detail", () => {
    const outcome = classifyAgentRun(
      report({ result: "You've hit your limit · resets 8pm (America/New_York)", total_cost_usd: 0.01 }),
    );
    expect(outcome.reason).toBe("rate_limited");
    expect(outcome.limited?.until?.toISOString()).toBe("2026-12-02T01:00:00.000Z");
    expect(outcome.message).toBe(
      "the provider refused for a limit until 2026-12-02T01:00:00.000Z: You've hit your limit · resets 8pm (America/New_York)",
    );
    expect(outcome.costMicroUsd).toBe(10_000);
    expect(agentOutcomeDetail(outcome).limited_until).toBe("2026-12-02T01:00:00.000Z");
  });

  it("in stream-json output the result line decides; the JSON Lines before it are read past", () => {
    const stdout = [
      JSON.stringify({ type: "system", subtype: "init", session_id: "s-1" }),
      JSON.stringify({ type: "system", subtype: "api_retry", attempt: 1, error_status: 529 }),
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: true,
        api_error_status: 529,
        session_id: "s-1",
        result: "API Error: 529 overloaded",
      }),
      "",
    ].join("\n");
    const outcome = classifyAgentRun(report({}, { stdout }));
    expect(outcome).toMatchObject({ reason: "rate_limited", sessionId: "s-1" });
  });

  it("a success mentioning a limit, a timeout and an auth failure are judged as before", () => {
    const text = "Added the 'You've hit your limit · resets 8pm (UTC)' banner. <promise>COMPLETE</promise>";
    expect(classifyAgentRun(report({ is_error: false, result: text }, { exitCode: 0 })).ok).toBe(true);
    expect(classifyAgentRun(report({ api_error_status: 429 }, { timedOut: true })).reason).toBe("timeout");
    const auth = report({ api_error_status: 401, result: "Failed to authenticate. API Error: 401" });
    expect(classifyAgentRun(auth).reason).toBe("agent_unavailable");
  });

  it("without a result JSON, a usage-limit message on stderr is rate_limited", () => {
    const outcome = classifyAgentRun(
      report({}, { stdout: "", stderr: "Claude AI usage limit reached|1749924000\n" }),
    );
    expect(outcome).toMatchObject({ reason: "rate_limited", limited: { until: new Date(1749924000_000) } });
  });
});
