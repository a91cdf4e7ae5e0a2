import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import { findResultObject, type RawObject } from "./find-result.js";

/**
 * The plain definition of what findResultObject accepts, parse after parse: the whole text, then every
 * line from the last, then the text from each of the last 64 line starts that open `{` or `[`.
 * Quadratic on hostile output, which is why the real one does not work this way.
 */
function byDefinition(stdout: string): RawObject | undefined {
  const text = stdout.trim();
  if (text === "") return undefined;
  const whole = resultIn(tryParse(text));
  if (whole) return whole;
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = (lines[i] ?? "").trim();
    if (!line.startsWith("{") && !line.startsWith("[")) continue;
    const found = resultIn(tryParse(line));
    if (found) return found;
  }
  let attempts = 0;
  for (let i = lines.length - 1; i > 0 && attempts < 64; i -= 1) {
    const line = (lines[i] ?? "").trimStart();
    if (!line.startsWith("{") && !line.startsWith("[")) continue;
    attempts += 1;
    const found = resultIn(tryParse(lines.slice(i).join("\n")));
    if (found) return found;
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function resultIn(value: unknown): RawObject | undefined {
  const isObject = (v: unknown): v is RawObject => typeof v === "object" && v !== null && !Array.isArray(v);
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return items
      .filter(isObject)
      .reverse()
      .find((item) => item.type === "result");
  }
  if (!isObject(value)) return undefined;
  if (value.type === "result") return value;
  return value.type === undefined && typeof value.is_error === "boolean" ? value : undefined;
}

const result = (n: number) => ({ type: "result", subtype: "success", is_error: false, result: `r${n}` });

/** Lines an agent's output is made of: results in every shape, noise, and fragments of JSON. */
const line = fc.oneof(
  fc.nat(9).map((n) => JSON.stringify(result(n))),
  fc.nat(9).map((n) => JSON.stringify(result(n), null, 2)),
  fc.nat(9).map((n) => JSON.stringify([{ type: "system" }, result(n)], null, 1)),
  fc.nat(9).map((n) => ` \t${JSON.stringify({ is_error: n % 2 === 0, n })}`),
  fc.constantFrom("{", "[", "}", "]", "},", '"', '\\"', '{"type":', '"result"}', '  "type": "result"', ""),
  fc.constantFrom("\u00a0{}", '{"type":"assistant"}', "noise", "[ANTHROPIC_LOG] {", "\r", " ] }"),
  fc.json(),
);

describe("findResultObject", () => {
  it("finds what the plain definition finds, in every mix of results, noise and fragments", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, crlf) => {
        const stdout = lines.join(crlf ? "\r\n" : "\n");
        expect(findResultObject(stdout)).toEqual(byDefinition(stdout));
      }),
      { numRuns: 3000 },
    );
  });

  it("looks for a document over several lines from the last 64 line starts only, as defined", () => {
    const pretty = JSON.stringify({ ...result(1), list: Array.from({ length: 70 }, () => ({})) }, null, 2);
    expect(pretty.split("\n").filter((l) => l.trimStart().startsWith("{")).length).toBeGreaterThan(64);
    expect(findResultObject(`noise\n${pretty}`)).toBeUndefined();
    expect(byDefinition(`noise\n${pretty}`)).toBeUndefined();
    const shorter = JSON.stringify({ ...result(1), list: Array.from({ length: 60 }, () => ({})) }, null, 2);
    expect(findResultObject(`noise\n${shorter}`)).toMatchObject({ result: "r1" });
  });

  it("classifies megabytes of crafted output: lines of braces, quotes and keys that never close", () => {
    const mb = 6 * 1024 * 1024;
    const hostile = [
      '{"type":\n',
      '{"type":"result",\n',
      '[{"type":"result"},\n',
      "{\n",
      '{"\\\n',
      '{"type":[[[[[[[[\n',
      '\\"{"is_error":',
    ]
      .join("")
      .repeat(mb / 200);
    const stdout = `${hostile}${"{\n".repeat(mb / 4)}${"[".repeat(mb / 8)}\n${'"type"'.repeat(mb / 30)}`;
    expect(stdout.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(
      classifyAgentRun({ exitCode: 0, signal: null, stdout, stderr: "", timedOut: false }),
    ).toMatchObject({
      ok: false,
      reason: "parse_error",
    });
    const withResult = `${hostile}\n${JSON.stringify(result(7), null, 2)}\n`;
    expect(findResultObject(withResult)).toMatchObject({ result: "r7" });
  });
});
