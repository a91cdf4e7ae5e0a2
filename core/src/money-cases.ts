import type { MicroUsd } from "./money.js";

/**
 * The amount rule of `parseUsd` as a table, for the tests of every path that reads an amount (HTTP,
 * agent results, the CLI): each path must accept exactly these amounts, as these micro-dollars.
 * `undefined` means refused.
 */
export const USD_CASES: readonly { readonly input: string | number; readonly micro: MicroUsd | undefined }[] =
  [
    { input: "0.059272", micro: 59_272 },
    { input: 0.059272, micro: 59_272 },
    { input: "5", micro: 5_000_000 },
    { input: 5, micro: 5_000_000 },
    { input: "0", micro: 0 },
    { input: "-0", micro: 0 },
    { input: -0, micro: 0 },
    { input: "-0.000", micro: 0 },
    { input: "0.0000001", micro: 0 },
    { input: 1e-7, micro: 0 },
    { input: "0.0000005", micro: 1 },
    { input: 5e-7, micro: 1 },
    { input: "99999999.999999", micro: 99_999_999_999_999 },
    { input: "99999999.9999990", micro: 99_999_999_999_999 },
    { input: "99999999.9999999", micro: undefined },
    { input: 99999999.9999999, micro: undefined },
    { input: "99999999.9999994", micro: undefined },
    { input: "100000000", micro: undefined },
    { input: 1e21, micro: undefined },
    { input: " 1", micro: undefined },
    { input: "1 ", micro: undefined },
    { input: "+1", micro: undefined },
    { input: "-1", micro: undefined },
    { input: -0.5, micro: undefined },
    { input: "1e-7", micro: undefined },
    { input: "1.", micro: undefined },
    { input: ".5", micro: undefined },
    { input: "", micro: undefined },
    { input: "abc", micro: undefined },
    { input: Number.NaN, micro: undefined },
    { input: Number.POSITIVE_INFINITY, micro: undefined },
  ];
