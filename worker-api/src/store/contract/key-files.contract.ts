import { describe, expect, it } from "vitest";
import { type ContractContext, claimAs, plan, task } from "./helpers.contract.js";

/** Two tasks of a plan whose `key_files` overlap are never in flight at once (docs/claim.md). */
export function describeKeyFileContract(ctx: ContractContext): void {
  describe("key-file locks", () => {
    const keyed = () =>
      plan("p", [
        task("A", { keyFiles: ["src/x.ts"] }),
        task("B", { keyFiles: ["src/x.ts", "src/y.ts"] }),
        task("C", { keyFiles: ["src/z.ts"] }),
        task("D", { keyFiles: [] }),
      ]);

    it("skips a task sharing a key file with one in flight, and claims it once that one is done", async () => {
      await ctx.store.importPlan(keyed());
      const order: (string | undefined)[] = [];
      for (let n = 0; n < 4; n++) order.push((await claimAs(ctx.store, "p", `w${n}`))?.id);
      expect(order).toEqual(["A", "C", "D", undefined]);
      const a = await ctx.store.getTask("p", "A");
      await ctx.store.complete({
        planId: "p",
        taskId: "A",
        workerId: "w0",
        version: a?.version ?? -1,
        costMicroUsd: 0,
      });
      expect((await claimAs(ctx.store, "p", "w4"))?.id).toBe("B");
    });

    it("a release or a retry waiting on its backoff holds no key file", async () => {
      await ctx.store.importPlan(keyed());
      const a = await claimAs(ctx.store, "p", "w1");
      const fence = { planId: "p", taskId: "A", workerId: "w1", version: a?.version ?? -1 };
      await ctx.store.fail({
        ...fence,
        costMicroUsd: 0,
        reason: "verification_failed",
        backoff: { baseMs: 3_600_000, capMs: 3_600_000 },
      });
      const b = await claimAs(ctx.store, "p", "w2");
      expect(b?.id).toBe("B");
      await ctx.store.release({
        planId: "p",
        taskId: "B",
        workerId: "w2",
        version: b?.version ?? -1,
        reason: "shutdown",
      });
      // A still waits on its backoff; B is free again and first in line.
      expect((await claimAs(ctx.store, "p", "w3"))?.id).toBe("B");
    });
  });
}
