import { describe, expect, it } from "vitest";
import { painter, terminalSafe } from "../io.js";
import { displayDuration, renderTable } from "./table.js";

describe("table output", () => {
  it("aligns columns ignoring the painter's colours", () => {
    let text = "";
    const terminal = terminalSafe({ write: (chunk: string) => (text += chunk), isTTY: true });
    const paint = painter(terminal, {});
    terminal.write(
      renderTable(
        ["A", "B"],
        [
          [paint("green", "DONE"), "x"],
          ["PENDING", "y"],
        ],
      ),
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("A        B");
    expect(lines[1]?.replaceAll("\u001b[32m", "").replaceAll("\u001b[39m", "")).toBe("DONE     x");
    expect(lines[2]).toBe("PENDING  y");
  });

  it("keeps a cell on its row and shows its control characters escaped", () => {
    const text = renderTable(["A", "B"], [["two\nlines", "\u001b]0;title\u0007"]]);
    expect(text).toBe("A           B\ntwo\\nlines  \\u001b]0;title\\u0007\n");
  });

  it("formats durations for people", () => {
    expect(displayDuration(850)).toBe("850ms");
    expect(displayDuration(12_340)).toBe("12.3s");
    expect(displayDuration(245_000)).toBe("4m05s");
    expect(displayDuration(3_720_000)).toBe("1h02m");
  });
});
