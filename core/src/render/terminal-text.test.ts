import { describe, expect, it } from "vitest";
import { renderPlanGraph } from "./plan-graph.js";
import { terminalText } from "./terminal-text.js";

describe("terminalText", () => {
  it("leaves ordinary text alone, tabs and non-ASCII text included", () => {
    const text = "Plan — Проект 1\tT-1 😀 [done]";
    expect(terminalText(text)).toBe(text);
  });

  it("escapes C0 controls, DEL, C1 controls and bidirectional overrides", () => {
    expect(terminalText("a\u001b[2Jb\u0007c\u007fd\u009be\u202ef\u2066g\u0000")).toBe(
      "a\\u001b[2Jb\\u0007c\\u007fd\\u009be\\u202ef\\u2066g\\u0000",
    );
  });

  it("keeps line feeds in 'lines' mode and escapes them, and CR always, in 'line' mode", () => {
    expect(terminalText("one\r\ntwo", "lines")).toBe("one\\r\ntwo");
    expect(terminalText("one\r\ntwo")).toBe("one\\r\\ntwo");
  });

  it("uses JSON's escapes, so JSON text keeps its meaning", () => {
    const json = JSON.stringify({ name: "a\u0085b\u202ec\u007f", list: ["x\ny"] }, null, 2);
    const shown = terminalText(json, "lines");
    expect(shown).not.toBe(json);
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });
});

describe("renderPlanGraph with hostile names", () => {
  it("keeps the title on its line and escapes what a terminal would act on", () => {
    const text = renderPlanGraph({
      planId: "p",
      name: "Name\nPlan: fake\u001b[2J",
      tasks: [{ id: "T-1", status: "PENDING", priority: "low", dependencies: [] }],
    });
    expect(text.split("\n")[0]).toBe("Plan: p — Name\\nPlan: fake\\u001b[2J");
  });
});
