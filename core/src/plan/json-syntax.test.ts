import { describe, expect, it } from "vitest";
import { findJsonSyntaxError, lineColumn } from "./json-syntax.js";

describe("findJsonSyntaxError", () => {
  it.each([
    "{}",
    "[]",
    '{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {}}',
    ' \n"just a string"\n',
  ])("accepts %j", (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(findJsonSyntaxError(text)).toBeUndefined();
  });

  it.each([
    ["", 1, 1, "the text ends before the JSON value is complete"],
    ["{x}", 1, 2, "expected a double-quoted property name, found 'x'"],
    ['{"a":1,}', 1, 8, "expected a double-quoted property name, found '}'"],
    ['{"a" 1}', 1, 6, "expected ':' after the property name"],
    ['{\n  "a": tru\n}', 2, 8, "expected a value, found 't'"],
    ["[1 2]", 1, 4, "expected ',' or ']', found '2'"],
    ['{"a":1}}', 1, 8, "unexpected text after the JSON value"],
    ['["a\nb"]', 1, 4, "unescaped control character in a string: a line break"],
    ['["\\x"]', 1, 3, "invalid escape sequence in a string"],
    ['["abc', 1, 2, "unterminated string"],
    ['{"é": 01}', 1, 8, "expected ',' or '}', found '1'"],
  ])("locates the error in %j", (text, line, column, message) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(findJsonSyntaxError(text)).toEqual({ line, column, message });
  });

  it("handles nesting far deeper than the call stack", () => {
    expect(findJsonSyntaxError(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBeUndefined();
  });
});

describe("lineColumn", () => {
  it("counts columns in characters, not UTF-16 units", () => {
    expect(lineColumn("ab\n😀x", 5)).toEqual({ line: 2, column: 2 });
  });
});
