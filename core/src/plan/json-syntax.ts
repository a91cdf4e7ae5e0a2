/** Where a JSON text first breaks the grammar, and what was expected there. */
export type JsonSyntaxError = {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in characters (code points). */
  readonly column: number;
  readonly message: string;
};

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const WHITESPACE = /[ \t\n\r]*/y;

/**
 * Finds the first syntax error in `text` (RFC 8259 grammar). `JSON.parse` does not give a position for
 * every error on every Node version, so the plan parser re-scans a text it refused to say where.
 * Iterative: deep nesting cannot overflow the stack.
 * @returns the error, or `undefined` when `text` is valid JSON.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const failure = new Scanner(text).run();
  return failure && { ...lineColumn(text, failure.offset), message: failure.message };
}

/** 1-based line and column (in code points) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  const line = before.split("\n").length;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}

type Failure = { readonly offset: number; readonly message: string };

/** What the scanner may meet next. */
type Expect = "value" | "valueOrClose" | "key" | "keyOrClose" | "afterValue";

class Scanner {
  private readonly stack: string[] = [];
  private expect: Expect = "value";
  private i = 0;

  constructor(private readonly text: string) {}

  run(): Failure | undefined {
    for (;;) {
      this.i = matchAt(WHITESPACE, this.text, this.i) ?? this.i;
      if (this.i >= this.text.length) {
        if (this.expect === "afterValue" && this.stack.length === 0) return undefined;
        return this.fail("the text ends before the JSON value is complete");
      }
      const failure =
        this.expect === "afterValue"
          ? this.afterValue()
          : this.expect === "key" || this.expect === "keyOrClose"
            ? this.key()
            : this.value();
      if (failure) return failure;
    }
  }

  private peek(): string {
    return this.text.charAt(this.i);
  }

  private fail(message: string, offset = this.i): Failure {
    return { offset, message };
  }

  private afterValue(): Failure | undefined {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return this.fail("unexpected text after the JSON value");
    const close = top === "{" ? "}" : "]";
    if (this.peek() === ",") this.expect = top === "{" ? "key" : "value";
    else if (this.peek() === close) this.stack.pop();
    else return this.fail(`expected ',' or '${close}', found ${describe(this.peek())}`);
    this.i++;
    return undefined;
  }

  private key(): Failure | undefined {
    if (this.expect === "keyOrClose" && this.peek() === "}") return this.close();
    if (this.peek() !== '"')
      return this.fail(`expected a double-quoted property name, found ${describe(this.peek())}`);
    const failure = this.string();
    if (failure) return failure;
    this.i = matchAt(WHITESPACE, this.text, this.i) ?? this.i;
    if (this.peek() !== ":") return this.fail("expected ':' after the property name");
    this.i++;
    this.expect = "value";
    return undefined;
  }

  private value(): Failure | undefined {
    const char = this.peek();
    if (this.expect === "valueOrClose" && char === "]") return this.close();
    if (char === "{" || char === "[") {
      this.stack.push(char);
      this.expect = char === "{" ? "keyOrClose" : "valueOrClose";
      this.i++;
      return undefined;
    }
    if (char === '"') {
      const failure = this.string();
      if (failure) return failure;
    } else {
      const end = matchAt(NUMBER, this.text, this.i) ?? matchAt(LITERAL, this.text, this.i);
      if (end === undefined) return this.fail(`expected a value, found ${describe(char)}`);
      this.i = end;
    }
    this.expect = "afterValue";
    return undefined;
  }

  private close(): undefined {
    this.stack.pop();
    this.expect = "afterValue";
    this.i++;
    return undefined;
  }

  /** Moves past the string starting at the current quote. */
  private string(): Failure | undefined {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length) {
      const char = this.peek();
      if (char === '"') {
        this.i++;
        return undefined;
      }
      if (char === "\\") {
        const end = matchAt(ESCAPE, this.text, this.i);
        if (end === undefined) return this.fail("invalid escape sequence in a string");
        this.i = end;
      } else if (char < " ") {
        return this.fail(`unescaped control character in a string: ${describe(char)}`);
      } else {
        this.i++;
      }
    }
    return this.fail("unterminated string", start);
  }
}

function matchAt(pattern: RegExp, text: string, offset: number): number | undefined {
  pattern.lastIndex = offset;
  return pattern.test(text) ? pattern.lastIndex : undefined;
}

function describe(char: string): string {
  if (char === "\n") return "a line break";
  if (char < " " || char === "\u007f") return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return `'${char}'`;
}
