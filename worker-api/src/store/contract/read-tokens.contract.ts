import { InvalidInput } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught } from "./helpers.contract.js";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);

/** Read-only tokens of the read API: stored by hash, found while live, listed, revoked. */
export function describeReadTokenContract(ctx: ContractContext): void {
  describe("read tokens", () => {
    it("stores a token by hash, finds it while live, and lists it without the hash", async () => {
      const created = await ctx.store.createReadToken({ id: "rt-1", tokenHash: HASH_A, label: "dash" });
      expect(created).toMatchObject({ id: "rt-1", label: "dash", revokedAt: undefined });
      expect((await ctx.store.findReadTokenByHash(HASH_A))?.id).toBe("rt-1");
      expect(await ctx.store.findReadTokenByHash(HASH_B)).toBeUndefined();
      expect(await ctx.store.findReadTokenById("rt-1")).toMatchObject({ id: "rt-1", label: "dash" });
      expect(await ctx.store.findReadTokenById("rt-2")).toBeUndefined();
      expect(await ctx.store.findReadTokenByHash("not-a-hash")).toBeUndefined();
      const listed = await ctx.store.listReadTokens();
      expect(listed).toEqual([
        { id: "rt-1", label: "dash", createdAt: expect.any(Date), revokedAt: undefined },
      ]);
    });

    it("answers undefined for a taken id and refuses a malformed or shared hash", async () => {
      await ctx.store.createReadToken({ id: "rt-1", tokenHash: HASH_A });
      expect(await ctx.store.createReadToken({ id: "rt-1", tokenHash: HASH_B })).toBeUndefined();
      expect(await caught(ctx.store.createReadToken({ id: "rt-2", tokenHash: "ABC" }))).toBeInstanceOf(
        InvalidInput,
      );
      expect(await caught(ctx.store.createReadToken({ id: "rt-3", tokenHash: HASH_A }))).toBeInstanceOf(
        InvalidInput,
      );
    });

    it("revokes at once, keeps the row, and says so when revoked twice or unknown", async () => {
      await ctx.store.createReadToken({ id: "rt-1", tokenHash: HASH_A });
      expect(await ctx.store.revokeReadToken("rt-1")).toEqual({ found: true, wasLive: true });
      expect(await ctx.store.findReadTokenByHash(HASH_A)).toBeUndefined();
      expect(await ctx.store.findReadTokenById("rt-1")).toBeUndefined();
      expect(await ctx.store.revokeReadToken("rt-1")).toEqual({ found: true, wasLive: false });
      expect(await ctx.store.revokeReadToken("rt-9")).toEqual({ found: false, wasLive: false });
      expect((await ctx.store.listReadTokens())[0]?.revokedAt).toBeInstanceOf(Date);
    });
  });
}
