import { randomUrlSafe, sha256Hex } from "./secrets.js";

/** Every read-only token starts so, which tells it from a worker's bearer and lets redaction find it. */
export const READ_TOKEN_PREFIX = "whilly_read_";

/**
 * A new read-only token of the read API: 32 random bytes (base64url) after {@link READ_TOKEN_PREFIX},
 * an id to list and revoke it by (`rt-` and 8 random bytes), and the SHA-256 hex that is stored.
 */
export async function mintReadToken(): Promise<{ id: string; token: string; tokenHash: string }> {
  const token = `${READ_TOKEN_PREFIX}${randomUrlSafe(32)}`;
  return { id: `rt-${randomUrlSafe(8)}`, token, tokenHash: await sha256Hex(token) };
}
