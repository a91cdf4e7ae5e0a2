import { describe, expect, it } from "vitest";
import { UsageError } from "./exit-codes.js";
import { durationFlag } from "./options.js";

/** The error and hint `durationFlag` throws for `raw`. */
function refusal(raw: unknown, flag = "--verify-timeout", example = "10m"): [string, string | undefined] {
  try {
    durationFlag(raw, flag, example);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return [error.message, error.hint];
  }
  throw new Error(`durationFlag took ${String(raw)}`);
}

describe("durationFlag", () => {
  it("reads 90s, 10m, 1h, 1500ms and bare seconds", () => {
    expect(durationFlag("90s", "--verify-timeout", "10m")).toBe(90_000);
    expect(durationFlag("10m", "--verify-timeout", "10m")).toBe(600_000);
    expect(durationFlag("1h", "--verify-timeout", "10m")).toBe(3_600_000);
    expect(durationFlag("1500ms", "--verify-timeout", "10m")).toBe(1500);
    expect(durationFlag("2", "--verify-timeout", "10m")).toBe(2000);
  });

  it.each(["0", "0s", "0m", "0h", "0ms", "0.0001s", " 0 "])(
    "says a zero duration (%j) must be positive, with the flag's example",
    (raw) => {
      expect(refusal(raw)).toEqual([
        `--verify-timeout must be longer than 0; got '${raw}'`,
        "give a positive duration, e.g. --verify-timeout 10m",
      ]);
      expect(refusal(raw, "--task-timeout", "45m")[1]).toBe(
        "give a positive duration, e.g. --task-timeout 45m",
      );
    },
  );

  it("still names the spelling for a malformed value, and the limit for a too long one", () => {
    expect(refusal("soon")).toEqual([
      "--verify-timeout must be a duration like 90s, 30m or 1h; got 'soon'",
      "a number with s, m or h, or a bare number of seconds, e.g. --verify-timeout 10m",
    ]);
    expect(refusal("-5")[0]).toBe("--verify-timeout must be a duration like 90s, 30m or 1h; got '-5'");
    expect(refusal("9999h")[0]).toBe("--verify-timeout '9999h' is too long: at most 596h (about 24 days)");
  });
});
