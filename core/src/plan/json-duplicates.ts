import { locator, Token } from "../json/lexer.js";
import { walkJson } from "../json/walk.js";
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

/**
 * Finds every key that repeats within one object of a valid JSON text. `JSON.parse` keeps the last of
 * them without a word, so an earlier value (a second `priority`, a second `tasks` list) would vanish.
 * Keys compare after unescaping (`"a"` and `"\u0061"` are the same key). One pass, linear in the text;
 * iterative, so deep nesting cannot overflow the stack.
 * @param text a text `JSON.parse` accepted; on anything else the answer is unspecified.
 * @returns the repeats in text order, each naming its path and position (every repeat after the first).
 */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const locate = locator(text);
  const stack: Frame[] = [];
  const element = () => {
    const top = stack[stack.length - 1];
    if (top?.kind === "array") top.index++;
  };
  walkJson(text, {
    open: (kind) => {
      element();
      stack.push(
        kind === Token.OPEN_OBJECT
          ? { kind: "object", keys: new Set(), key: undefined }
          : { kind: "array", index: -1 },
      );
    },
    close: () => stack.pop(),
    scalar: element,
    key: (start, end) => {
      const top = stack[stack.length - 1];
      if (top?.kind !== "object") return;
      const key = readKey(text.slice(start, end));
      if (top.keys.has(key)) found.push({ path: [...pathOf(stack), key], ...locate(start) });
      top.keys.add(key);
      top.key = key;
    },
  });
  return found;
}

/** A key's text, quotes included, unescaped. */
function readKey(quoted: string): string {
  return quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
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
