import type { Segment } from "./issues.js";

/** A key that appears twice in one JSON object: where the second one is, as a path and a position. */
export type DuplicateKey = {
  /** The repeated key's path from the root, e.g. `["tasks", 2, "priority"]`. */
  readonly path: readonly Segment[];
  /** 1-based line of the repeated key. */
  readonly line: number;
  /** 1-based column of the repeated key, in characters (code points). */
  readonly column: number;
};

type Frame =
  | { readonly kind: "object"; readonly keys: Set<string>; key: string | undefined }
  | { readonly kind: "array"; index: number };

// The next quote or backslash inside a string: the only characters that matter there.
const QUOTE_OR_BACKSLASH = /["\\]/g;

/**
 * Finds every key that repeats within one object of a valid JSON text. `JSON.parse` keeps the last of
 * them without a word, so an earlier value (a second `priority`, a second `tasks` list) would vanish.
 * Keys compare after unescaping (`"a"` and `"\u0061"` are the same key). One pass, linear in the text;
 * iterative, so deep nesting cannot overflow the stack.
 * @param text a text `JSON.parse` accepted; on anything else the answer is unspecified.
 * @returns the repeats in text order, each naming its path and position (every repeat after the first).
 */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  return new KeyScanner(text).run();
}

class KeyScanner {
  private readonly found: DuplicateKey[] = [];
  private readonly locate: (offset: number) => { line: number; column: number };
  private readonly stack: Frame[] = [];
  private expectKey = false;

  constructor(private readonly text: string) {
    this.locate = locator(text);
  }

  run(): DuplicateKey[] {
    let i = 0;
    while (i < this.text.length) {
      const char = this.text.charCodeAt(i);
      if (char === 0x22 /* " */) {
        i = this.string(i);
        continue;
      }
      if (char === 0x7b /* { */) this.open({ kind: "object", keys: new Set(), key: undefined });
      else if (char === 0x5b /* [ */) this.open({ kind: "array", index: 0 });
      else if (char === 0x7d /* } */ || char === 0x5d /* ] */) this.close();
      else if (char === 0x2c /* , */) this.comma();
      i++;
    }
    return this.found;
  }

  private open(frame: Frame): void {
    this.stack.push(frame);
    this.expectKey = frame.kind === "object";
  }

  private close(): void {
    this.stack.pop();
    this.expectKey = false;
  }

  private comma(): void {
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === "array") top.index++;
    else this.expectKey = true;
  }

  /** Moves past the string at `start`, noting it when it is a key; returns the offset after it. */
  private string(start: number): number {
    const end = endOfString(this.text, start);
    const top = this.stack[this.stack.length - 1];
    if (this.expectKey && top?.kind === "object") {
      const key = readKey(this.text.slice(start, end));
      if (top.keys.has(key)) this.found.push({ path: [...pathOf(this.stack), key], ...this.locate(start) });
      top.keys.add(key);
      top.key = key;
      this.expectKey = false;
    }
    return end;
  }
}

/** A key's text, quotes included, unescaped. */
function readKey(quoted: string): string {
  return quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}

/** The offset just past the string whose opening quote is at `start`. */
function endOfString(text: string, start: number): number {
  QUOTE_OR_BACKSLASH.lastIndex = start + 1;
  for (;;) {
    const match = QUOTE_OR_BACKSLASH.exec(text);
    if (match === null) return text.length;
    if (match[0] === '"') return match.index + 1;
    // A backslash escapes the character after it (`\"`, `\\`, or the first of `\uXXXX`).
    QUOTE_OR_BACKSLASH.lastIndex = match.index + 2;
  }
}

/** The path of the containers on `stack`, up to (not including) the current key of the innermost one. */
function pathOf(stack: readonly Frame[]): Segment[] {
  const path: Segment[] = [];
  for (let depth = 0; depth < stack.length - 1; depth++) {
    const frame = stack[depth] as Frame;
    path.push(frame.kind === "array" ? frame.index : (frame.key ?? ""));
  }
  return path;
}

/**
 * Line and column of increasing offsets in `text`, counted on from the previous answer, so locating
 * every repeat costs one pass over the text in all.
 */
function locator(text: string): (offset: number) => { line: number; column: number } {
  let at = 0;
  let line = 1;
  let column = 1;
  return (offset) => {
    for (; at < offset; at++) {
      const code = text.charCodeAt(at);
      if (code === 0x0a) {
        line++;
        column = 1;
      } else if (code < 0xdc00 || code > 0xdfff) {
        // A low surrogate finishes a character its high surrogate already counted.
        column++;
      }
    }
    return { line, column };
  };
}
