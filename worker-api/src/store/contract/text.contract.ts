import { InvalidInput } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { type ContractContext, caught, claimAs, plan, task } from "./helpers.contract.js";

const NUL = String.fromCharCode(0);
const LONE_HIGH = String.fromCharCode(0xd800);

/** Text Postgres cannot hold: plan content is refused by field, agent output is stored safely. */
export function describeTextContract(ctx: ContractContext): void {
  describe("unstorable text", () => {
    it("refuses a NUL character in plan content, naming the field, and stays usable", async () => {
      const error = await caught(ctx.store.importPlan(plan("p", [task("T-1", { description: `a${NUL}b` })])));
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).field).toBe('tasks["T-1"].description');
      expect((error as Error).message).toContain("NUL");
      expect(await ctx.store.getPlan("p")).toBeUndefined();
      expect((await ctx.store.importPlan(plan("p", [task("T-1")]))).inserted).toEqual(["T-1"]);
    });

    it("refuses a lone surrogate in a task id, a plan id or an extra field", async () => {
      for (const spec of [
        plan("p", [task(`T${LONE_HIGH}`)]),
        plan(`p${LONE_HIGH}`, [task("T")]),
        plan("p", [task("T", { extra: { note: `x${LONE_HIGH}` } })]),
      ]) {
        const error = await caught(ctx.store.importPlan(spec));
        expect(error).toBeInstanceOf(InvalidInput);
        expect((error as Error).message).toContain("surrogate");
      }
    });

    it("translates the database's refusal of a NUL in a lookup into InvalidInput", async () => {
      const error = await caught(ctx.store.getPlan(`p${NUL}`));
      expect(error).toBeInstanceOf(InvalidInput);
    });

    it("stores agent output with NUL characters and lone surrogates replaced, keeping the rest", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const claimed = await claimAs(ctx.store, "p", "w1");
      await ctx.store.fail({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: claimed?.version ?? -1,
        reason: `exit${NUL}1`,
        costMicroUsd: 0,
        detail: { output_tail: `bin${NUL}ary ${LONE_HIGH}tail 🚀`, [`k${NUL}`]: 1 },
      });
      const failed = (await ctx.store.listEvents("p")).find((e) => e.eventType === "FAIL");
      expect(failed?.payload.reason).toBe("exit\uFFFD1");
      expect(failed?.detail).toEqual({ output_tail: "bin\uFFFDary \uFFFDtail 🚀", "k\uFFFD": 1 });
    });
  });
}
