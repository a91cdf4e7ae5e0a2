import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayUsd, formatUsd, MAX_MICRO_USD, parseUsd } from "./money.js";
import { USD_CASES } from "./money-cases.js";

const micro = fc.integer({ min: 0, max: MAX_MICRO_USD });

/** A decimal string of at most `maxWhole` dollars with up to six decimals, e.g. "12.05". */
const decimalUpTo = (maxWhole: bigint) =>
  fc
    .tuple(fc.bigInt({ min: 0n, max: maxWhole }), fc.option(fc.bigInt({ min: 0n, max: 999_999n })), fc.nat(5))
    .map(([whole, fraction, cut]) => {
      if (fraction === null) return `${whole}`;
      return `${whole}.${fraction
        .toString()
        .padStart(6, "0")
        .slice(0, 6 - cut)}`;
    });
const decimal = decimalUpTo(99_999_999n);

/** Exact micro-dollars of a decimal string with at most six decimals, by BigInt arithmetic. */
const exactMicro = (text: string): bigint => {
  const [whole = "0", fraction = ""] = text.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
};

describe("money", () => {
  it("format then parse gives back the same micro-dollars", () => {
    fc.assert(
      fc.property(micro, (amount) => {
        expect(parseUsd(formatUsd(amount))).toBe(amount);
      }),
    );
  });

  it("parses decimal strings exactly and formats them with six decimals", () => {
    fc.assert(
      fc.property(decimal, (text) => {
        const amount = parseUsd(text);
        expect(amount).toBeDefined();
        expect(BigInt(amount as number)).toBe(exactMicro(text));
        expect(exactMicro(formatUsd(amount as number))).toBe(exactMicro(text));
      }),
    );
  });

  it("sums many small costs exactly, unlike floats", () => {
    fc.assert(
      fc.property(fc.array(decimalUpTo(999n), { maxLength: 200 }), (costs) => {
        const sum = costs.reduce((total, text) => total + (parseUsd(text) as number), 0);
        const exact = costs.reduce((total, text) => total + exactMicro(text), 0n);
        expect(BigInt(sum)).toBe(exact);
        expect(formatUsd(sum)).toBe(
          `${exact / 1_000_000n}.${(exact % 1_000_000n).toString().padStart(6, "0")}`,
        );
      }),
    );
    const tenCents = Array.from({ length: 10 }, () => parseUsd("0.1") as number);
    expect(formatUsd(tenCents.reduce((a, b) => a + b, 0))).toBe("1.000000");
  });

  it("parses numbers as agent CLIs report them", () => {
    expect(parseUsd(0.059272)).toBe(59_272);
    expect(parseUsd(1e-7)).toBe(0);
    expect(parseUsd(5e-7)).toBe(1);
    expect(parseUsd(0.1 + 0.2)).toBe(300_000);
  });

  it("rounds half up past the sixth decimal", () => {
    expect(parseUsd("0.0000005")).toBe(1);
    expect(parseUsd("0.0000004999")).toBe(0);
    expect(parseUsd("1.9999995")).toBe(2_000_000);
  });

  it("refuses what is not a non-negative decimal in range", () => {
    for (const bad of ["", "-1", "1e3", "abc", "1.", ".5", "NaN", "100000000"])
      expect(parseUsd(bad)).toBeUndefined();
    for (const bad of [-0.01, Number.NaN, Number.POSITIVE_INFINITY]) expect(parseUsd(bad)).toBeUndefined();
    expect(parseUsd(" 2.5 ")).toBeUndefined();
  });

  it("formats for people with two to four decimals", () => {
    expect(displayUsd(59_272)).toBe("$0.0592");
    expect(displayUsd(0)).toBe("$0.00");
    expect(displayUsd(1_500_000)).toBe("$1.50");
    expect(formatUsd(-1)).toBe("-0.000001");
  });
});

describe("the amount rule", () => {
  it.each(USD_CASES)("parseUsd($input) is $micro", ({ input, micro }) => {
    expect(parseUsd(input)).toBe(micro);
  });
});
