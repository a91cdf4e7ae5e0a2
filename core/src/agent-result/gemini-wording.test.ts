import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import { geminiRetryAt, providerLimit } from "./limits.js";

// How the Gemini CLI words quota and credential failures (an adapter folds them into a result object
// without an HTTP status when the CLI's text names none).
const NOW = new Date("2026-12-01T22:47:00Z");

function failed(message: string, extra: Record<string, unknown> = {}) {
  const result = {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    result: "",
    errors: [message],
    ...extra,
  };
  return { exitCode: 1, signal: null, stdout: JSON.stringify(result), stderr: "", timedOut: false, now: NOW };
}

describe("Gemini wordings in the shared classifier", () => {
  it.each([
    "[API Error: You have exhausted your daily quota on this model.]",
    "[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute' and limit ...]",
    "You exceeded your current quota, please check your plan and billing details.",
    '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}',
    "You have exhausted your capacity on this model.",
    "Resource has been exhausted (e.g. check quota).",
    "Rate limit exceeded. Try again later.",
  ])("a failed run worded %j is a provider limit", (message) => {
    expect(providerLimit({ is_error: true }, [message], NOW)).toEqual({
      message: message.split("\n")[0],
      until: undefined,
    });
    expect(classifyAgentRun(failed(message)).reason).toBe("rate_limited");
  });

  it("reads the retry delay as the reset; a status other than a limit's still wins over the wording", () => {
    expect(geminiRetryAt("Quota exceeded. Please retry in 43.5s.", NOW)).toEqual(
      new Date(NOW.getTime() + 43_500),
    );
    expect(geminiRetryAt("Suggested retry after 60s.", NOW)).toEqual(new Date(NOW.getTime() + 60_000));
    expect(geminiRetryAt("Please retry in 850ms", NOW)).toEqual(new Date(NOW.getTime() + 850));
    expect(geminiRetryAt("retry soon", NOW)).toBeUndefined();
    const limited = classifyAgentRun(
      failed("Quota exceeded for quota metric x.\nSuggested retry after 60s."),
    );
    expect(limited.limited?.until).toEqual(new Date(NOW.getTime() + 60_000));
    expect(
      classifyAgentRun(failed("Quota exceeded for quota metric x", { api_error_status: 500 })).reason,
    ).toBe("error_subtype");
    expect(classifyAgentRun(failed("cannot write: disk quota exceeded")).reason).toBe("error_subtype");
    expect(classifyAgentRun(failed("the GitHub API rate limited the tests")).reason).toBe("error_subtype");
    const success = {
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Quota exceeded? No. <promise>COMPLETE</promise>",
    };
    expect(classifyAgentRun({ ...failed(""), exitCode: 0, stdout: JSON.stringify(success) }).ok).toBe(true);
  });

  it.each([
    "[API Error: API key not valid. Please pass a valid API key.]",
    '{"error":{"code":400,"details":[{"reason":"API_KEY_INVALID"}]}}',
    "API key expired. Please renew the API key.",
    "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
  ])("a failed run worded %j lacks credentials", (message) => {
    const outcome = classifyAgentRun(failed(message, { api_error_status: 400 }));
    expect([outcome.reason, outcome.unavailable]).toEqual(["agent_unavailable", "auth"]);
  });

  it("without a result, the CLI's own missing-key message on stderr is an auth failure", () => {
    const outcome = classifyAgentRun({
      exitCode: 41,
      signal: null,
      stdout: "",
      stderr:
        "Please set an Auth method in your /home/u/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY",
      timedOut: false,
    });
    expect([outcome.reason, outcome.unavailable]).toEqual(["agent_unavailable", "auth"]);
  });
});
