/**
 * The one JSON tokenizer under core's scanners (plan syntax errors, duplicate keys, agent-result
 * detection): RFC 8259 tokens with their offsets, no values built, linear in the text.
 */

/** What {@link JsonLexer.next} found. The punctuation tokens come first, in the order of `{}[],:`. */
export const Token = {
  END: 0,
  OPEN_OBJECT: 1,
  CLOSE_OBJECT: 2,
  OPEN_ARRAY: 3,
  CLOSE_ARRAY: 4,
  COMMA: 5,
  COLON: 6,
  STRING: 7,
  NUMBER: 8,
  /** `true`, `false` or `null`. */
  LITERAL: 9,
  /** A string that breaks the grammar; {@link JsonLexer.problem} says where and why. */
  BAD_STRING: 10,
  /** One character no token starts with. */
  UNKNOWN: 11,
} as const;
export type Token = (typeof Token)[keyof typeof Token];

/** Where a text breaks the JSON grammar (a UTF-16 offset) and why. */
export type JsonProblem = { readonly offset: number; readonly message: string };

const LITERALS: Readonly<Record<string, string>> = { t: "true", f: "false", n: "null" };
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/**
 * Reads `text` one token at a time, skipping JSON whitespace. After {@link next}, `start` and `end`
 * (UTF-16 offsets, `end` exclusive; a string's include its quotes) bound the token. Allocates nothing
 * per token, so scanning megabytes of agent output stays cheap.
 */
export class JsonLexer {
  start = 0;
  end = 0;
  /** Set with a {@link Token.BAD_STRING}: the first break inside the string. */
  problem: JsonProblem | undefined;

  constructor(readonly text: string) {}

  /** Moves to the next token; {@link Token.END} (at `text.length`) once only whitespace is left. */
  next(): Token {
    const { text } = this;
    let i = this.end;
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; ) {
      c = text.charCodeAt(++i);
    }
    this.start = i;
    this.end = i + 1;
    if (i >= text.length) {
      this.end = i;
      return Token.END;
    }
    const char = text.charAt(i);
    const punctuation = "{}[],:".indexOf(char);
    if (punctuation >= 0) return (punctuation + 1) as Token;
    if (char === '"') return this.string();
    const literal = LITERALS[char];
    if (literal !== undefined) {
      if (!text.startsWith(literal, i)) return Token.UNKNOWN;
      this.end = i + literal.length;
      return Token.LITERAL;
    }
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) return Token.UNKNOWN;
    this.end = NUMBER.lastIndex;
    return Token.NUMBER;
  }

  private string(): Token {
    const { text } = this;
    for (let i = this.start + 1; i < text.length; ) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.end = i + 1;
        return Token.STRING;
      }
      if (c === 0x5c) {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) return this.bad(i, "invalid escape sequence in a string");
        i = ESCAPE.lastIndex;
      } else if (c < 0x20) {
        return this.bad(i, `unescaped control character in a string: ${describeChar(text.charAt(i))}`);
      } else {
        i++;
      }
    }
    return this.bad(this.start, "unterminated string");
  }

  private bad(offset: number, message: string): Token {
    this.problem = { offset, message };
    this.end = this.text.length;
    return Token.BAD_STRING;
  }
}

/** A character for an error message: quoted, or named when it would not print. */
export function describeChar(char: string): string {
  if (char === "\n") return "a line break";
  if (char < " " || char === "\u007f") return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return `'${char}'`;
}

/**
 * 1-based line and column (in code points, as an editor counts) of increasing offsets in `text`,
 * counted on from the previous answer, so locating many offsets costs one pass over the text in all.
 */
export function locator(text: string): (offset: number) => { line: number; column: number } {
  let at = 0;
  let line = 1;
  let column = 1;
  return (offset) => {
    for (; at < offset; at++) {
      const code = text.charCodeAt(at);
      if (code === 0x0a) {
        line++;
        column = 1;
      } else if (!(code >= 0xdc00 && code <= 0xdfff && isHighSurrogate(text.charCodeAt(at - 1)))) {
        // A low surrogate finishes a character its high surrogate already counted.
        column++;
      }
    }
    return { line, column };
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
