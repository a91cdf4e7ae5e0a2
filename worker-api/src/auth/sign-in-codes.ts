import { randomUrlSafe } from "./secrets.js";

/**
 * One-time sign-in codes: a host that knows its admin token (`whilly run --ui`) prints a link carrying a
 * code instead of the token, and the dashboard trades the code for a session once.
 */
export type SignInCodes = {
  /** A new code, good once until the TTL runs out. */
  issue(): string;
  /** True once for a code issued and not yet redeemed or expired; false for anything else. */
  redeem(code: string): boolean;
};

/**
 * Codes kept in this process's memory, so they die with it.
 * @param options.ttlMs how long a code stays good after it was issued (ms).
 * @param options.now the clock (ms since the epoch); `Date.now` unless a test gives another.
 */
export function createSignInCodes(options: { ttlMs: number; now?: () => number }): SignInCodes {
  const now = options.now ?? Date.now;
  const expiries = new Map<string, number>();
  return {
    issue() {
      const code = randomUrlSafe(24);
      expiries.set(code, now() + options.ttlMs);
      return code;
    },
    redeem(code) {
      const expiry = expiries.get(code);
      expiries.delete(code);
      return expiry !== undefined && now() < expiry;
    },
  };
}
