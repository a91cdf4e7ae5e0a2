import { dropCutFragment } from "../redact/redact.js";

/** The most output an outcome keeps, in UTF-8 bytes. */
export const OUTPUT_TAIL_BYTES = 4096;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Replaces characters Postgres cannot store with U+FFFD: NUL breaks `text` and `jsonb`, a lone surrogate
 * breaks `jsonb`.
 */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", "\ufffd").replace(LONE_SURROGATE, "\ufffd");
}

/**
 * The end of `text` that an outcome keeps ({@link utf8Tail} of `maxBytes`); when text was cut, its
 * first word is dropped too ({@link dropCutFragment}), so a secret the cut split leaves no piece behind.
 */
export function outputTail(text: string, maxBytes: number = OUTPUT_TAIL_BYTES): string {
  const tail = utf8Tail(text, maxBytes);
  return tail.length === text.length ? tail : utf8Tail(dropCutFragment(tail), maxBytes);
}

/**
 * The longest end of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character.
 * Expects well-formed text (see {@link storableText}).
 */
export function utf8Tail(text: string, maxBytes: number): string {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    let next = start - 1;
    const code = text.charCodeAt(next);
    if (code >= 0xdc00 && code <= 0xdfff && next > 0) {
      const high = text.charCodeAt(next - 1);
      if (high >= 0xd800 && high <= 0xdbff) next -= 1;
    }
    const width = start - next === 2 ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    start = next;
  }
  return text.slice(start);
}
