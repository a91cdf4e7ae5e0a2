import { locator } from "../json/lexer.js";
import { walkJson } from "../json/walk.js";

/** Where a JSON text first breaks the grammar, and what was expected there. */
export type JsonSyntaxError = {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in characters (code points). */
  readonly column: number;
  readonly message: string;
};

/**
 * Finds the first syntax error in `text` (RFC 8259 grammar). `JSON.parse` does not give a position for
 * every error on every Node version, so the plan parser re-scans a text it refused to say where.
 * Iterative: deep nesting cannot overflow the stack.
 * @returns the error, or `undefined` when `text` is valid JSON.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const failure = walkJson(text);
  return failure && { ...lineColumn(text, failure.offset), message: failure.message };
}

/** 1-based line and column (in code points) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  return locator(text)(offset);
}
