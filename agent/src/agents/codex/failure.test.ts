import { describe, expect, it } from "vitest";
import { apiStatusOf, isNoise, isUsageLimit } from "./failure.js";

describe("Codex's failure wordings", () => {
  it.each([
    ["You’ve hit your usage limit. Try again at 6:06 PM.", 429],
    ["You've hit your usage limit for gpt-5-codex. Upgrade to Pro", 429],
    ["exceeded retry limit, last status: 429 Too Many Requests", 429],
    ["rate limit exceeded: Rate limit reached. Please try again in 2.4s.", 429],
    ["unexpected status 401 Unauthorized: Incorrect API key provided", 401],
    ["Missing environment variable: `OPENAI_API_KEY`.", 401],
    ["Missing environment variable: `AZURE_OPENAI_TOKEN`.", 401],
    ["Not logged in", 401],
    ["ChatGPT account ID not available, please re-run `codex login`", 401],
    ["unexpected status 403 Forbidden: unsupported_country_region_territory", 403],
    ["exceeded retry limit, last status: 500 Internal Server Error", 500],
    ["We’re currently experiencing high demand, which may cause temporary errors.", undefined],
    ["stream disconnected before completion: error decoding response body", undefined],
    ["Missing environment variable: `HOME`.", undefined],
  ])("%s → %s", (message, status) => {
    expect(apiStatusOf([message])).toBe(status);
  });

  it("a limit wins over a status another message names", () => {
    expect(apiStatusOf(["unexpected status 500", "You’ve hit your usage limit. Try again later."])).toBe(429);
    expect(isUsageLimit("You’ve used 90% of your usage limit")).toBe(false);
  });

  it.each([
    ["Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata", true],
    ["Reconnecting... 2/5 (stream disconnected before completion)", true],
    ["Falling back from WebSockets to HTTPS transport. stream disconnected", true],
    ["stream disconnected before completion", false],
  ])("noise: %s → %s", (message, noise) => {
    expect(isNoise(message)).toBe(noise);
  });
});
