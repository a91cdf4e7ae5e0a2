import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import { COMPLETION_MARKER, endsWithCompletionMarker } from "./marker.js";

/** The plain definition: the marker counts when an even number of fences opens lines before it. */
function byDefinition(text: string): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith(COMPLETION_MARKER)) return false;
  const before = trimmed.slice(0, trimmed.length - COMPLETION_MARKER.length);
  if ((before.match(/^\s*(```|~~~)/gm)?.length ?? 0) % 2 === 1) return false;
  return (before.slice(before.lastIndexOf("\n") + 1).split("`").length - 1) % 2 === 0;
}

describe("endsWithCompletionMarker", () => {
  it("counts the fences that open a line as the definition does, whatever the blanks and breaks", () => {
    const char = fc.constantFrom(
      "`",
      "``",
      "```",
      "~~~",
      "~",
      " ",
      "\t",
      "\n",
      "\r",
      "\u2028",
      "\u00a0",
      "x",
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
        const text = `${chars.join("")}${COMPLETION_MARKER}`;
        expect(endsWithCompletionMarker(text)).toBe(byDefinition(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("judges a final message of megabytes of blank lines", () => {
    const result = `${"\n \t".repeat(2_000_000)}${COMPLETION_MARKER}`;
    const stdout = JSON.stringify({ type: "result", subtype: "success", is_error: false, result });
    const outcome = classifyAgentRun({ exitCode: 0, signal: null, stdout, stderr: "", timedOut: false });
    expect(outcome.ok).toBe(true);
    expect(endsWithCompletionMarker(`${"\n ".repeat(2_000_000)}\`\`\`\n${COMPLETION_MARKER}`)).toBe(false);
  });
});
