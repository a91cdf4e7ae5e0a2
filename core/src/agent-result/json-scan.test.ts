import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayHoldResult, startOfTrailingValue } from "./json-scan.js";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Wrapped so that every valid text holds a result member: then the answer is validity alone. */
const asMember = (text: string) => `{"type":"result","v":${text}}`;

/** Pieces of JSON and of near-JSON, so random texts are often valid and often nearly so. */
const piece = fc.constantFrom(
  ...'{}[],:"\\ \t\n\r0123456789-+.eEtrufalsnx/bu'.split(""),
  "true",
  "false",
  "null",
  '"a"',
  "\\u00e9",
  "\\ud800",
  "\u0001",
  "\u00a0",
  '"type"',
  '"result"',
  '"is_error"',
);

/** A valid JSON text with one character deleted, replaced or inserted. */
const mutated = fc
  .tuple(fc.json(), fc.nat(), fc.constantFrom("delete", "replace", "insert"), piece)
  .map(([text, at, how, with_]) => {
    const i = at % (text.length + 1);
    if (how === "delete") return text.slice(0, i) + text.slice(i + 1);
    if (how === "replace") return text.slice(0, i) + with_ + text.slice(i + 1);
    return text.slice(0, i) + with_ + text.slice(i);
  });

describe("mayHoldResult", () => {
  it("accepts exactly what JSON.parse accepts, once a result member is there", () => {
    const texts = fc.oneof(
      fc.array(piece, { maxLength: 30 }).map((p) => p.join("")),
      mutated,
      fc.json(),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(mayHoldResult(asMember(text))).toBe(parses(asMember(text)));
      }),
      { numRuns: 5000 },
    );
  });

  it("accepts JSON with any whitespace, escapes and nesting JSON.parse accepts", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, "\t", " \r\n "), (value, indent) => {
        expect(mayHoldResult(asMember(JSON.stringify(value, null, indent)))).toBe(true);
      }),
    );
    const deep = 100_000;
    expect(mayHoldResult(asMember(`${"[".repeat(deep)}${"]".repeat(deep)}`))).toBe(true);
    expect(mayHoldResult(asMember(`${"[".repeat(deep)}${"]".repeat(deep - 1)}`))).toBe(false);
  });

  it("is false for valid JSON that cannot hold a result", () => {
    for (const text of [
      '{"type":"assistant"}',
      '{"type":["result"]}',
      '{"is_error":null}',
      '{"x":{"type":"result"}}',
      '[[{"type":"result"}]]',
      '[{"is_error":true}]',
      '"type"',
      "[]",
    ]) {
      expect(mayHoldResult(text), text).toBe(false);
    }
  });

  it("is true for the members of a result, also escaped", () => {
    for (const text of [
      '{"type":"result"}',
      '{"is_error":false}',
      ' [1, {"type" : "result"}] ',
      '{"t\\u0079pe":"result"}',
      '{"type":"r\\u0065sult"}',
    ]) {
      expect(mayHoldResult(text), text).toBe(true);
    }
  });
});

describe("startOfTrailingValue", () => {
  it("finds where the value ending the text opens, past strings with brackets and escaped quotes", () => {
    const value = '{"a":"}]\\"[{","b":[1,{"c":"\\\\"}]}';
    expect(startOfTrailingValue(`noise {[ "\n${value}`)).toBe(`noise {[ "\n`.length);
    expect(startOfTrailingValue("text")).toBe(-1);
    expect(startOfTrailingValue("]]")).toBe(-1);
  });

  it("finds the start of every suffix that is a JSON object or array", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (noise, value) => {
        const json = JSON.stringify({ value });
        expect(startOfTrailingValue(`${noise}\n${json}`)).toBe(noise.length + 1);
      }),
    );
  });
});
