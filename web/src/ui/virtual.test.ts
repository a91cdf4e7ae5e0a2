import { describe, expect, it } from "vitest";
import { rowWindow } from "./virtual.js";

describe("rowWindow", () => {
  it("renders the rows in view plus the overscan, and the space above them", () => {
    // 36 px rows, a 360 px viewport scrolled to row 100: rows 100..110 visible, 8 more each side.
    expect(rowWindow(3600, 360, 36, 1000, 8)).toEqual({ start: 92, end: 119, top: 92 * 36 });
  });

  it("clamps at both ends of the list", () => {
    expect(rowWindow(0, 360, 36, 1000, 8)).toEqual({ start: 0, end: 19, top: 0 });
    expect(rowWindow(999_999, 360, 36, 1000, 8)).toEqual({ start: 991, end: 1000, top: 991 * 36 });
    expect(rowWindow(-50, 360, 36, 5, 8)).toEqual({ start: 0, end: 5, top: 0 });
  });

  it("renders nothing for an empty list or a bad row height", () => {
    expect(rowWindow(0, 360, 36, 0)).toEqual({ start: 0, end: 0, top: 0 });
    expect(rowWindow(0, 360, 0, 10)).toEqual({ start: 0, end: 0, top: 0 });
  });
});
