import { describe, expect, it } from "vitest";
import { JsonLexer, locator, Token } from "./lexer.js";

function tokens(text: string): [Token, string][] {
  const lexer = new JsonLexer(text);
  const found: [Token, string][] = [];
  for (let token = lexer.next(); token !== Token.END; token = lexer.next()) {
    found.push([token, text.slice(lexer.start, lexer.end)]);
    if (token === Token.BAD_STRING) break;
  }
  return found;
}

describe("JsonLexer", () => {
  it("reads every token with its bounds, skipping JSON whitespace only", () => {
    expect(tokens(' {"a\\"b":\t[-1.5e3, true,false ,null]}\r\n')).toEqual([
      [Token.OPEN_OBJECT, "{"],
      [Token.STRING, '"a\\"b"'],
      [Token.COLON, ":"],
      [Token.OPEN_ARRAY, "["],
      [Token.NUMBER, "-1.5e3"],
      [Token.COMMA, ","],
      [Token.LITERAL, "true"],
      [Token.COMMA, ","],
      [Token.LITERAL, "false"],
      [Token.COMMA, ","],
      [Token.LITERAL, "null"],
      [Token.CLOSE_ARRAY, "]"],
      [Token.CLOSE_OBJECT, "}"],
    ]);
  });

  it("stops a number where the grammar does, and marks what starts no token", () => {
    expect(tokens("01 2. tru - \u00a0")).toEqual([
      [Token.NUMBER, "0"],
      [Token.NUMBER, "1"],
      [Token.NUMBER, "2"],
      [Token.UNKNOWN, "."],
      [Token.UNKNOWN, "t"],
      [Token.UNKNOWN, "r"],
      [Token.UNKNOWN, "u"],
      [Token.UNKNOWN, "-"],
      [Token.UNKNOWN, "\u00a0"],
    ]);
  });

  it.each([
    ['"abc', 0, "unterminated string"],
    ['"a\\x"', 2, "invalid escape sequence in a string"],
    ['"a\\u12g4"', 2, "invalid escape sequence in a string"],
    ['"a\tb"', 2, "unescaped control character in a string: \\u0009"],
  ])("says where the string %j breaks", (text, offset, message) => {
    const lexer = new JsonLexer(text);
    expect(lexer.next()).toBe(Token.BAD_STRING);
    expect(lexer.problem).toEqual({ offset, message });
  });
});

describe("locator", () => {
  it("counts lines and code points, a lone surrogate as one character", () => {
    const text = "a😀b\n\udc00c\ud800d";
    const locate = locator(text);
    expect(locate(3)).toEqual({ line: 1, column: 3 });
    expect(locate(5)).toEqual({ line: 2, column: 1 });
    expect(locate(6)).toEqual({ line: 2, column: 2 });
    expect(locate(9)).toEqual({ line: 2, column: 5 });
    expect(locate(9)).toEqual({ line: 2, column: [..."\udc00c\ud800d"].length + 1 });
  });
});
