import { randomUrlSafe } from "./secrets.js";

/**
 * One-time sign-in codes of `whilly run --ui`: the command prints a link carrying a code, and the
 * browser trades it for the admin token and a session (`POST /api/v1/session/redeem`), so the token
 * itself never appears in a URL, a shell history or a browser's history.
 */
export type SignInCodes = {
  /** A new code: 32 random bytes, base64url (43 characters), valid once until the TTL ends. */
  issue(): string;
  /** True, once, for a code issued and not yet redeemed or expired; the code is spent either way. */
  redeem(code: string): boolean;
};

/**
 * Sign-in codes kept in this process's memory (a `whilly run` serves its own browser only).
 * @param options.ttlMs how long a code stays valid (ms).
 * @param options.now the clock (ms since the epoch); `Date.now` unless a test sets it.
 */
export function createSignInCodes(options: { ttlMs: number; now?: () => number }): SignInCodes {
  const now = options.now ?? Date.now;
  const live = new Map<string, number>();
  const dropExpired = (at: number) => {
    for (const [code, expiresAt] of live) if (expiresAt <= at) live.delete(code);
  };
  return {
    issue() {
      dropExpired(now());
      const code = randomUrlSafe(32);
      live.set(code, now() + options.ttlMs);
      return code;
    },
    redeem(code) {
      const expiresAt = live.get(code);
      live.delete(code);
      return expiresAt !== undefined && now() < expiresAt;
    },
  };
}
