import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsOf, makeRepo, makeStoreTemplate, removeAll, runCli } from "../../../../test/support/cli.js";

// `whilly plan budget` in-process on the embedded store; run.test.ts shows claims resuming after it.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly plan budget", () => {
  it("changes the cap, prints old → new and the spend, and writes plan.budget_changed each time", async () => {
    const repo = makeRepo(template);
    await runCli(["plan", "create", "--id", "p 1", "--name", "P", "--budget", "5"], { cwd: repo });
    expect(await runCli(["plan", "budget", "p 1", "7.5"], { cwd: repo })).toEqual({
      code: 0,
      out: "plan 'p 1' budget: $5.00 → $7.50 (spent $0.00).\n",
      err: "",
    });
    expect(await runCli(["plan", "budget", "p 1", "None"], { cwd: repo })).toEqual({
      code: 0,
      out: "plan 'p 1' budget: $7.50 → unlimited (spent $0.00).\n",
      err: "",
    });
    expect(await runCli(["plan", "budget", "p 1", "0"], { cwd: repo })).toEqual({
      code: 0,
      out: "plan 'p 1' budget: unlimited → $0.00 (spent $0.00).\n",
      err: "warning: the spend is at or over the new budget: no task is claimed until the budget is raised above it\n",
    });
    const changed = (await eventsOf(repo, "p 1")).filter((e) => e.eventType === "plan.budget_changed");
    expect(changed.map((e) => [e.payload.budget_usd_before, e.payload.budget_usd])).toEqual([
      ["5.000000", "7.500000"],
      ["7.500000", null],
      [null, "0.000000"],
    ]);
  });

  it("--reserve sets the per-attempt reservation, default clears it, and a bad one is refused", async () => {
    const repo = makeRepo(template);
    await runCli(["plan", "create", "--id", "p", "--name", "P"], { cwd: repo });
    expect(await runCli(["plan", "budget", "p", "5", "--reserve", "0.25"], { cwd: repo })).toEqual({
      code: 0,
      out: "plan 'p' budget: unlimited → $5.00 (spent $0.00, reserve $0.25 per attempt).\n",
      err: "",
    });
    expect((await runCli(["plan", "budget", "p", "5", "--reserve", "default"], { cwd: repo })).out).toBe(
      "plan 'p' budget: $5.00 → $5.00 (spent $0.00, reserve default per attempt).\n",
    );
    const bad = await runCli(["plan", "budget", "p", "5", "--reserve", " 1"], { cwd: repo });
    expect([bad.code, bad.err.split("\n")[0]]).toEqual([
      1,
      "error: --reserve must be a non-negative amount in USD, e.g. 5.00; got ' 1'",
    ]);
  });

  it("refuses a bad amount (exit 1) and an unknown plan (exit 2), changing nothing", async () => {
    const repo = makeRepo(template);
    await runCli(["plan", "create", "--id", "p", "--name", "P", "--budget", "5"], { cwd: repo });
    for (const bad of ["abc", "-1", "1e3", ""]) {
      expect(await runCli(["plan", "budget", "p", bad], { cwd: repo })).toEqual({
        code: 1,
        out: "",
        err: `error: <budget> must be a non-negative amount in USD, e.g. 5.00; got '${bad}'\nhint: a plain non-negative decimal number, without $ or exponent: 5, 5.00 or 0.25; none for unlimited\n`,
      });
    }
    // Positive amounts that would round to a cap of $0 are refused, not silently made 0.
    for (const args of [["0.0000001"], ["5", "--reserve", "0.0000004"]]) {
      const tiny = await runCli(["plan", "budget", "p", ...args], { cwd: repo });
      expect([tiny.code, tiny.out]).toEqual([1, ""]);
      expect(tiny.err).toMatch(
        /rounds to \$0\.000000: whilly keeps six decimals\nhint: give at least 0\.000001/,
      );
    }
    const missing = await runCli(["plan", "budget", "nope", "5"], { cwd: repo });
    expect([missing.code, missing.out]).toEqual([2, ""]);
    expect(missing.err).toContain("error: plan 'nope' not found");
    expect(await eventsOf(repo, "p")).toEqual([]);
  });
});
