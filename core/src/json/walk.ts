import { describeChar, JsonLexer, type JsonProblem, Token } from "./lexer.js";

/** What {@link walkJson} reports as it reads a valid prefix; each scanner listens to what it needs. */
export type JsonVisitor = {
  /** A container opens. */
  readonly open?: (kind: typeof Token.OPEN_OBJECT | typeof Token.OPEN_ARRAY) => void;
  /** The innermost open container closes. */
  readonly close?: () => void;
  /** A property name at `[start, end)`, quotes included (not yet followed by its `:`). */
  readonly key?: (start: number, end: number) => void;
  /** A string, number or literal (`true`, `false`, `null`) value at `[start, end)`. */
  readonly scalar?: (kind: Token, start: number, end: number) => void;
};

/** What the walk may meet next. */
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY = 2;
const KEY_OR_CLOSE = 3;
const AFTER_VALUE = 4;

/**
 * Reads `text` as one JSON value (RFC 8259, what `JSON.parse` accepts), telling `visitor` what it
 * meets, and stops at the first break of the grammar. Iterative, so nesting deeper than the call stack
 * is fine; linear in `text.length`.
 * @returns where and why the text breaks the grammar, or `undefined` when it is valid JSON.
 */
export function walkJson(text: string, visitor: JsonVisitor = {}): JsonProblem | undefined {
  return new Walk(text, visitor).run();
}

class Walk {
  private readonly lexer: JsonLexer;
  /** The open containers' opening tokens, outermost first. */
  private readonly open: Token[] = [];
  private expect = VALUE;

  constructor(
    private readonly text: string,
    private readonly visitor: JsonVisitor,
  ) {
    this.lexer = new JsonLexer(text);
  }

  run(): JsonProblem | undefined {
    for (;;) {
      const token = this.lexer.next();
      if (token === Token.END) {
        if (this.expect === AFTER_VALUE && this.open.length === 0) return undefined;
        return this.problem("the text ends before the JSON value is complete");
      }
      const problem =
        this.expect === AFTER_VALUE
          ? this.afterValue(token)
          : this.expect === KEY || this.expect === KEY_OR_CLOSE
            ? this.key(token)
            : this.value(token);
      if (problem !== undefined) return problem;
    }
  }

  private afterValue(token: Token): JsonProblem | undefined {
    const top = this.open[this.open.length - 1];
    if (top === undefined) return this.problem("unexpected text after the JSON value");
    const inObject = top === Token.OPEN_OBJECT;
    if (token === (inObject ? Token.CLOSE_OBJECT : Token.CLOSE_ARRAY)) return this.close();
    if (token !== Token.COMMA)
      return this.problem(`expected ',' or '${inObject ? "}" : "]"}', found ${this.found()}`);
    this.expect = inObject ? KEY : VALUE;
    return undefined;
  }

  private key(token: Token): JsonProblem | undefined {
    if (this.expect === KEY_OR_CLOSE && token === Token.CLOSE_OBJECT) return this.close();
    if (token === Token.BAD_STRING) return this.lexer.problem;
    if (token !== Token.STRING)
      return this.problem(`expected a double-quoted property name, found ${this.found()}`);
    this.visitor.key?.(this.lexer.start, this.lexer.end);
    if (this.lexer.next() !== Token.COLON) return this.problem("expected ':' after the property name");
    this.expect = VALUE;
    return undefined;
  }

  private value(token: Token): JsonProblem | undefined {
    if (this.expect === VALUE_OR_CLOSE && token === Token.CLOSE_ARRAY) return this.close();
    if (token === Token.OPEN_OBJECT || token === Token.OPEN_ARRAY) {
      this.open.push(token);
      this.visitor.open?.(token);
      this.expect = token === Token.OPEN_OBJECT ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
      return undefined;
    }
    if (token === Token.BAD_STRING) return this.lexer.problem;
    if (token < Token.STRING || token > Token.LITERAL)
      return this.problem(`expected a value, found ${this.found()}`);
    this.visitor.scalar?.(token, this.lexer.start, this.lexer.end);
    this.expect = AFTER_VALUE;
    return undefined;
  }

  private close(): undefined {
    this.open.pop();
    this.visitor.close?.();
    this.expect = AFTER_VALUE;
    return undefined;
  }

  /** The current token's first character, for a message. */
  private found(): string {
    return describeChar(this.text.charAt(this.lexer.start));
  }

  private problem(message: string): JsonProblem {
    return { offset: this.lexer.start, message };
  }
}
