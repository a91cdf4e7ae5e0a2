import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("parses durations with units, bare numbers as seconds", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("1500ms")).toBe(1500);
    expect(parseDuration("2")).toBe(2000);
    expect(parseDuration("0")).toBeUndefined();
    expect(parseDuration("-5s")).toBeUndefined();
    expect(parseDuration("soon")).toBeUndefined();
    // Timers fire at once past 2^31 - 1 ms, so longer durations are refused rather than misread.
    expect(parseDuration("596h")).toBe(2_145_600_000);
    expect(parseDuration("597h")).toBeUndefined();
  });
});
