import { ConfigurationError } from "@whilly/core";
import { utf8 } from "./secrets.js";

/** The shortest `WHILLY_TOKEN_SECRET` accepted: HS256 wants a key at least as long as its 256-bit output. */
export const MIN_SIGNING_SECRET_LENGTH = 32;

/** HKDF salt and info: fixed labels, so a bootstrap token always derives the same key for this purpose only. */
const HKDF_SALT = utf8("whilly worker-token signing key");
const HKDF_INFO = utf8("HS256 v1");

/**
 * The HMAC key that signs and verifies per-worker bearers (HS256, 32 bytes).
 *
 * - `signingSecret` (`WHILLY_TOKEN_SECRET`) set: its UTF-8 bytes, as given.
 * - Otherwise: HKDF-SHA-256 of the bootstrap token (salt `whilly worker-token signing key`, info
 *   `HS256 v1`). Every replica with the same bootstrap token then verifies the same tokens with no extra
 *   secret to distribute; rotating the bootstrap token invalidates every worker token, so set
 *   `WHILLY_TOKEN_SECRET` to rotate them independently.
 *
 * The key guards the token's integrity; it is not the only check: a token is honoured only while its
 * hash is stored, so knowing the key lets no one act as a worker.
 * @throws {ConfigurationError} for a `signingSecret` shorter than {@link MIN_SIGNING_SECRET_LENGTH}.
 */
export async function deriveSigningKey(options: {
  bootstrapToken: string;
  signingSecret?: string | undefined;
}): Promise<Uint8Array<ArrayBuffer>> {
  if (options.signingSecret !== undefined) {
    assertSigningSecret(options.signingSecret);
    return utf8(options.signingSecret);
  }
  const material = await crypto.subtle.importKey("raw", utf8(options.bootstrapToken), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: HKDF_INFO },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/**
 * Checks a `WHILLY_TOKEN_SECRET` before any request needs it.
 * @throws {ConfigurationError} when it is shorter than {@link MIN_SIGNING_SECRET_LENGTH}.
 */
export function assertSigningSecret(secret: string): void {
  if (secret.length < MIN_SIGNING_SECRET_LENGTH) {
    throw new ConfigurationError(
      `WHILLY_TOKEN_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters long`,
      { hint: "generate one with: openssl rand -base64 48" },
    );
  }
}
