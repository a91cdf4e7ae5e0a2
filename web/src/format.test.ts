import { describe, expect, it } from "vitest";
import { filledEntries } from "./format.js";

describe("filledEntries", () => {
  it("leaves out empty strings, null and undefined, keeping zero, false and text in order", () => {
    const failure = {
      step: "npm test",
      exit_code: 0,
      retry: false,
      output_tail: "",
      not_before: null,
      x: undefined,
    };
    expect(filledEntries(failure)).toEqual([
      ["step", "npm test"],
      ["exit_code", 0],
      ["retry", false],
    ]);
  });
});
