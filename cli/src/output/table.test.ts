import { describe, expect, it } from "vitest";
import { displayDuration, renderTable } from "./table.js";

describe("table output", () => {
  it("aligns columns ignoring ANSI colour codes", () => {
    const text = renderTable(
      ["A", "B"],
      [
        ["\u001b[32mDONE\u001b[39m", "x"],
        ["PENDING", "y"],
      ],
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("A        B");
    expect(lines[1]?.replaceAll("\u001b[32m", "").replaceAll("\u001b[39m", "")).toBe("DONE     x");
    expect(lines[2]).toBe("PENDING  y");
  });

  it("formats durations for people", () => {
    expect(displayDuration(850)).toBe("850ms");
    expect(displayDuration(12_340)).toBe("12.3s");
    expect(displayDuration(245_000)).toBe("4m05s");
    expect(displayDuration(3_720_000)).toBe("1h02m");
  });
});
