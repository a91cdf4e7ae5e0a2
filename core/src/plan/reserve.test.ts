import { describe, expect, it } from "vitest";
import { PlanInvalid } from "../errors.js";
import { USD_CASES } from "../money-cases.js";
import { parsePlanObject } from "./parse-plan.js";

const planWith = (reserve: unknown) => ({
  project: "p",
  reserve_usd: reserve,
  tasks: [{ id: "A", status: "pending", priority: "low", description: "a" }],
});

describe("the plan file's reserve_usd", () => {
  it.each(USD_CASES.filter((c) => Number.isFinite(c.input) || typeof c.input === "string"))(
    "reserve_usd $input is $micro µUSD, or refused naming the field",
    ({ input, micro }) => {
      if (micro === undefined) {
        expect(() => parsePlanObject(planWith(input), "plan.json")).toThrow(PlanInvalid);
        expect(() => parsePlanObject(planWith(input), "plan.json")).toThrow(/reserve_usd/);
      } else {
        const plan = parsePlanObject(planWith(input), "plan.json");
        expect(plan.reserveMicroUsd).toBe(micro);
        // Kept for export, as the file wrote it.
        expect(plan.extra.reserve_usd).toEqual(input);
      }
    },
  );

  it("is absent unless the file gives it", () => {
    expect(parsePlanObject(planWith(undefined), "plan.json").reserveMicroUsd).toBeUndefined();
  });
});
