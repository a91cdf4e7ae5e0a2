import { InvalidInput } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, plan, task } from "./helpers.contract.js";

/** A well-formed token hash (64 lowercase hex digits) standing for the bearer `name`. */
function hashOf(name: "t" | "t1" | "t2" | "u"): string {
  const digit = { t: "0", t1: "1", t2: "2", u: "a" }[name];
  return digit.repeat(64);
}

/** Registration by token hash, lookup by hash, revocation, and the health ping. */
export function describeWorkerContract(ctx: ContractContext): void {
  describe("worker registration", () => {
    it("registers a worker online and finds it by the hash of its token", async () => {
      const worker = await ctx.store.registerWorker({
        workerId: "w-1",
        hostname: "box",
        tokenHash: hashOf("t1"),
      });
      expect(worker).toMatchObject({ workerId: "w-1", hostname: "box", status: "online" });
      expect((await ctx.store.findWorkerByTokenHash(hashOf("t1")))?.workerId).toBe("w-1");
      expect(await ctx.store.findWorkerByTokenHash(hashOf("t2"))).toBeUndefined();
    });

    it("leaves a taken id untouched and answers undefined, so the caller can retry", async () => {
      await ctx.store.registerWorker({ workerId: "w-1", hostname: "first", tokenHash: hashOf("t1") });
      const again = await ctx.store.registerWorker({
        workerId: "w-1",
        hostname: "second",
        tokenHash: hashOf("t2"),
      });
      expect(again).toBeUndefined();
      const [stored] = await ctx.store.listWorkers();
      expect(stored?.hostname).toBe("first");
      expect((await ctx.store.findWorkerByTokenHash(hashOf("t1")))?.workerId).toBe("w-1");
      expect(await ctx.store.findWorkerByTokenHash(hashOf("t2"))).toBeUndefined();
    });

    it("refuses a second worker with the same token hash", async () => {
      await ctx.store.registerWorker({ workerId: "w-1", hostname: "h", tokenHash: hashOf("t") });
      const error = await caught(
        ctx.store.registerWorker({ workerId: "w-2", hostname: "h", tokenHash: hashOf("t") }),
      );
      expect(error).toBeInstanceOf(InvalidInput);
      expect((await ctx.store.listWorkers()).map((w) => w.workerId)).toEqual(["w-1"]);
    });

    it("refuses anything but a SHA-256 hex digest as a token hash, so no bearer is stored in clear", async () => {
      const error = await caught(
        ctx.store.registerWorker({ workerId: "w-1", hostname: "h", tokenHash: "plain-bearer" }),
      );
      expect(error).toBeInstanceOf(InvalidInput);
      expect(await ctx.store.listWorkers()).toEqual([]);
      expect(await ctx.store.findWorkerByTokenHash("plain-bearer")).toBeUndefined();
    });

    it("revocation clears the hash at once, marks the worker offline and releases its tasks", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await ctx.store.registerWorker({ workerId: "w-1", hostname: "h", tokenHash: hashOf("t1") });
      await ctx.store.registerWorker({ workerId: "w-2", hostname: "h", tokenHash: hashOf("t2") });
      const a = await claimAs(ctx.store, "p", "w-1");
      const b = await claimAs(ctx.store, "p", "w-2");

      const result = await ctx.store.revokeWorker("w-1");
      expect(result.found).toBe(true);
      expect(result.hadToken).toBe(true);
      expect(result.released.map((t) => [t.id, t.status, t.claimedBy])).toEqual([
        ["A", "PENDING", undefined],
      ]);
      expect(await ctx.store.findWorkerByTokenHash(hashOf("t1"))).toBeUndefined();
      expect((await ctx.store.findWorkerByTokenHash(hashOf("t2")))?.workerId).toBe("w-2");
      const workers = await ctx.store.listWorkers();
      expect(workers.map((w) => [w.workerId, w.status])).toEqual([
        ["w-1", "offline"],
        ["w-2", "online"],
      ]);
      expect(await ctx.store.getTask("p", b?.id ?? "")).toMatchObject({
        status: "CLAIMED",
        claimedBy: "w-2",
      });
      const last = (await ctx.store.listEvents("p")).at(-1);
      expect([last?.eventType, last?.taskId, last?.payload]).toEqual([
        "RELEASE",
        "A",
        { reason: "worker_revoked", version: (a?.version ?? 0) + 1, worker_id: "w-1" },
      ]);
    });

    it("revoking twice says the token was already gone; an unknown id is not found", async () => {
      await ctx.store.registerWorker({ workerId: "w-1", hostname: "h", tokenHash: hashOf("t1") });
      await ctx.store.revokeWorker("w-1");
      expect(await ctx.store.revokeWorker("w-1")).toEqual({ found: true, hadToken: false, released: [] });
      expect(await ctx.store.revokeWorker("nobody")).toEqual({ found: false, hadToken: false, released: [] });
    });

    it("a revoked hash can be held by a new worker (revoked hashes do not collide)", async () => {
      await ctx.store.registerWorker({ workerId: "w-1", hostname: "h", tokenHash: hashOf("t") });
      await ctx.store.revokeWorker("w-1");
      await ctx.store.registerWorker({ workerId: "w-2", hostname: "h", tokenHash: hashOf("u") });
      await ctx.store.revokeWorker("w-2");
      expect((await ctx.store.listWorkers()).length).toBe(2);
    });

    it("ping answers when the database does", async () => {
      await expect(ctx.store.ping()).resolves.toBeUndefined();
    });
  });
}
