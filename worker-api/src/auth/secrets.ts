/**
 * Byte-level helpers for secrets, on Web Crypto only so the same code runs on Node and in workerd
 * (where `node:crypto` needs the `nodejs_compat` flag).
 */

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  // A copy typed over a plain ArrayBuffer, as Web Crypto's parameter types want.
  return new Uint8Array(encoder.encode(text));
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`: how a bearer is stored (`workers.token_hash`). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Compares two byte strings in time that depends only on their lengths, never on where they first
 * differ: every byte pair is visited and differences are OR-ed together.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  for (let i = 0; i < length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/**
 * True when `presented` equals `expected`. Both are hashed first, so the comparison runs over two
 * 32-byte digests and its timing reveals neither the secret's bytes nor its length.
 */
export async function sameSecret(presented: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(presented), digest(expected)]);
  return constantTimeEqual(a, b);
}

/** `byteCount` random bytes as unpadded base64url (`A-Z a-z 0-9 - _`). */
export function randomUrlSafe(byteCount: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(byteCount));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text)));
}
