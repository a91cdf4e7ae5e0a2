import { blockedTasks } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, claimAs, ONE_ATTEMPT, plan, runNext, task } from "./helpers.contract.js";

/** A dependency ending FAILED or SKIPPED leaves its dependents PENDING, unclaimable and reported blocked. */
export function describeBlockedContract(ctx: ContractContext): void {
  describe("blocked tasks", () => {
    it("a FAILED dependency blocks its dependents transitively, naming the root blocker", async () => {
      await ctx.store.importPlan(
        plan(
          "p",
          [
            task("A"),
            task("B", { deps: ["A"] }),
            task("C", { deps: ["B"] }),
            task("D"),
            task("E", { deps: ["D"] }),
          ],
          ONE_ATTEMPT,
        ),
      );
      const a = await claimAs(ctx.store, "p", "w1");
      await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        reason: "is_error",
        costMicroUsd: 0,
      });
      await runNext(ctx.store, "p", "w1");
      expect(await ctx.store.listBlocked("p")).toEqual([
        { taskId: "B", blockedBy: ["A"] },
        { taskId: "C", blockedBy: ["A"] },
      ]);
      expect(await claimAs(ctx.store, "p", "w1")).toMatchObject({ id: "E" });
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
      const statuses = (await ctx.store.listTasks("p")).map((t) => [t.id, t.status]);
      expect(statuses).toEqual([
        ["A", "FAILED"],
        ["B", "PENDING"],
        ["C", "PENDING"],
        ["D", "DONE"],
        ["E", "CLAIMED"],
      ]);
    });

    it("a SKIPPED dependency blocks too, and several roots are all named", async () => {
      await ctx.store.importPlan(
        plan(
          "p",
          [task("A"), task("B"), task("C", { deps: ["A", "B"] }), task("D", { deps: ["C"] })],
          ONE_ATTEMPT,
        ),
      );
      await ctx.store.skipTask({ planId: "p", taskId: "A", reason: "decision_gate_failed" });
      const b = await claimAs(ctx.store, "p", "w1");
      await ctx.store.fail({
        planId: "p",
        taskId: "B",
        workerId: "w1",
        version: b?.version ?? -1,
        reason: "x",
        costMicroUsd: 0,
      });
      expect(await ctx.store.listBlocked("p")).toEqual([
        { taskId: "C", blockedBy: ["A", "B"] },
        { taskId: "D", blockedBy: ["A", "B"] },
      ]);
      expect(await claimAs(ctx.store, "p", "w1")).toBeUndefined();
    });

    it("reports what core's blockage rule reports, in core's id order (code point, not UTF-16)", async () => {
      // U+FF5E sorts before U+1F600 by code point (and by Postgres's C collation), after it by UTF-16 unit.
      const [fullwidth, emoji] = ["T-\uff5e", "T-\u{1f600}"];
      await ctx.store.importPlan(
        plan(
          "p",
          [task("A"), task(emoji, { deps: ["A"] }), task(fullwidth, { deps: ["A", emoji] })],
          ONE_ATTEMPT,
        ),
      );
      const a = await claimAs(ctx.store, "p", "w1");
      await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: a?.version ?? -1,
        reason: "is_error",
        costMicroUsd: 0,
      });
      const reported = await ctx.store.listBlocked("p");
      expect(reported).toEqual([
        { taskId: fullwidth, blockedBy: ["A"] },
        { taskId: emoji, blockedBy: ["A"] },
      ]);
      expect(reported).toEqual(blockedTasks(await ctx.store.listTasks("p")));
    });

    it("a dependency still running or pending blocks nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      await claimAs(ctx.store, "p", "w1");
      expect(await ctx.store.listBlocked("p")).toEqual([]);
    });
  });
}
