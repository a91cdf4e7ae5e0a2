import { describe, expect, it } from "vitest";
import { checkDuration, durationText, MAX_DURATION_MS, parseDuration, readDuration } from "./duration.js";
import type { SettingsProblem } from "./settings-problems.js";

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

describe("checkDuration and readDuration", () => {
  it("take plain decimals in the unit, rounded to whole ms, within a timer's bounds", () => {
    expect(checkDuration("0.5", "X", { unitMs: 1000 })).toEqual({ ms: 500 });
    expect(checkDuration(" 2147483647 ", "X", { unitMs: 1 })).toEqual({ ms: MAX_DURATION_MS });
    expect(checkDuration("0", "X", { unitMs: 1, minMs: 0 })).toEqual({ ms: 0 });
    expect(checkDuration("1.5h", "X", { unitMs: 1000, units: true })).toEqual({ ms: 5_400_000 });
    expect(checkDuration("90", "X", { unitMs: 1000, units: true })).toEqual({ ms: 90_000 });
  });

  it.each([
    ["0", { unitMs: 1000 }, "X must be a positive number of seconds up to 2147483.647; got '0'"],
    [
      "0.0004",
      { unitMs: 1000 },
      "X must be a positive number of seconds up to 2147483.647, at least 0.001; got '0.0004'",
    ],
    ["1e3", { unitMs: 1000, maxMs: 30_000 }, "X must be a positive number of seconds up to 30; got '1e3'"],
    ["0x10", { unitMs: 1 }, "X must be a positive number of milliseconds up to 2147483647; got '0x10'"],
    [
      "2147483648",
      { unitMs: 1, maxMs: 3e9 },
      "X must be a positive number of milliseconds up to 2147483647; got '2147483648'",
    ],
    ["-1", { unitMs: 1, minMs: 0 }, "X must be a number of milliseconds from 0 up to 2147483647; got '-1'"],
    ["5s", { unitMs: 1 }, "X must be a positive number of milliseconds up to 2147483647; got '5s'"],
    [
      "597h",
      { unitMs: 1000, units: true },
      "X must be a duration like 90s, 30m or 1h (a bare number is seconds), from 1 ms up to 2147483647 ms; got '597h'",
    ],
  ] as const)("refuses %j, naming the setting and its range", (text, range, problem) => {
    expect(checkDuration(text, "X", range)).toEqual({ problem });
  });

  it("readDuration gives the fallback for unset, blank or bad values, noting each bad one", () => {
    const problems: SettingsProblem[] = [];
    const spec = { fallbackMs: 7000, unitMs: 1000 } as const;
    expect(readDuration({ A: " " }, "A", spec, problems)).toBe(7000);
    expect(readDuration({}, "A", spec, problems)).toBe(7000);
    expect(readDuration({ A: "NaN" }, "A", spec, problems)).toBe(7000);
    expect(readDuration({ A: "3" }, "A", spec, problems)).toBe(3000);
    expect(problems).toEqual([
      {
        message: "A must be a positive number of seconds up to 2147483.647; got 'NaN'",
        hint: "e.g. A=7 (the default), or unset it",
      },
    ]);
  });
});

describe("durationText", () => {
  it("writes a duration as its flag would, so parseDuration reads it back", () => {
    expect(durationText(600_000)).toBe("10m");
    expect(durationText(5_400_000)).toBe("1h30m");
    expect(durationText(90_000)).toBe("1m30s");
    expect(durationText(2000)).toBe("2s");
    expect(durationText(1500)).toBe("1500ms");
    expect(durationText(0)).toBe("0ms");
    expect(parseDuration(durationText(3_600_000))).toBe(3_600_000);
  });
});
