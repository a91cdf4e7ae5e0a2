import { describe, expect, it } from "vitest";
import { createSignInCodes } from "./sign-in-codes.js";

// One-time sign-in codes of `whilly run --ui`, on a clock the test moves.

describe("sign-in codes", () => {
  it("issues distinct 32-byte base64url codes, each redeemable once", () => {
    const codes = createSignInCodes({ ttlMs: 60_000 });
    const first = codes.issue();
    const second = codes.issue();
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(second).not.toBe(first);
    expect(codes.redeem(first)).toBe(true);
    expect(codes.redeem(first)).toBe(false);
    expect(codes.redeem(second)).toBe(true);
    expect(codes.redeem("never-issued")).toBe(false);
  });

  it("refuses a code once its TTL has passed, and spends it", () => {
    let now = 1_000_000;
    const codes = createSignInCodes({ ttlMs: 5000, now: () => now });
    const late = codes.issue();
    const inTime = codes.issue();
    now += 4999;
    expect(codes.redeem(inTime)).toBe(true);
    now += 1;
    expect(codes.redeem(late)).toBe(false);
    now -= 1;
    expect(codes.redeem(late)).toBe(false);
  });
});
