/** The most output an outcome keeps, in UTF-8 bytes. */
export const OUTPUT_TAIL_BYTES = 4096;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ANTHROPIC_KEY = /sk-ant-[A-Za-z0-9_-]{4,}/g;

/**
 * Replaces characters Postgres cannot store with U+FFFD: NUL breaks `text` and `jsonb`, a lone surrogate
 * breaks `jsonb`.
 */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", "\ufffd").replace(LONE_SURROGATE, "\ufffd");
}

/**
 * Hides credentials: every Anthropic-style key (`sk-ant-…`) and every listed secret of 6 or more
 * characters (shorter ones would blank ordinary words).
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 6) out = out.split(secret).join("[redacted]");
  }
  return out.replace(ANTHROPIC_KEY, "sk-ant-[redacted]");
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
