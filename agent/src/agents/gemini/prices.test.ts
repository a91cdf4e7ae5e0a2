import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { geminiCostUsd, loadGeminiPrices, parsePriceTable, priceOf } from "./prices.js";

const dir = mkdtempSync(join(tmpdir(), "gemini-prices-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("Gemini prices", () => {
  it("bundles a valid table with the default model", () => {
    const table = loadGeminiPrices({});
    expect(priceOf(table, "gemini-2.5-pro")).toEqual({ input: 1.25, cachedInput: 0.125, output: 10 });
    expect(priceOf(table, "models/gemini-2.5-flash-lite")?.output).toBe(0.4);
  });

  it("prices a versioned name as its longest known prefix, and knows nothing else", () => {
    const table = loadGeminiPrices({});
    expect(priceOf(table, "gemini-2.5-flash-lite-preview-09-2025")).toEqual(
      priceOf(table, "gemini-2.5-flash-lite"),
    );
    expect(priceOf(table, "gemini-2.5-pro-002")).toEqual(priceOf(table, "gemini-2.5-pro"));
    expect(priceOf(table, "gemini-2.5-professional")).toBeUndefined();
    expect(priceOf(table, "gpt-5")).toBeUndefined();
  });

  it("computes micro-USD exactly and lists the models it cannot price", () => {
    const table = parsePriceTable({ models: { a: { input: 2, output: 8 } } }, "test");
    const models = new Map([
      ["a", { input: 1_000_000, cached: 500_000, output: 250_000 }],
      ["b", { input: 10, cached: 0, output: 0 }],
    ]);
    // cached_input defaults to input: 1 × 2 + 0.5 × 2 + 0.25 × 8 USD.
    expect(geminiCostUsd(table, models)).toEqual({ usd: 5, unpriced: ["b"] });
  });

  it("reads WHILLY_GEMINI_PRICES in place of the bundled table", () => {
    const path = file(
      "ok.json",
      JSON.stringify({ note: "mine", models: { "my-model": { input: 1, cached_input: 0.5, output: 3 } } }),
    );
    const table = loadGeminiPrices({ WHILLY_GEMINI_PRICES: path });
    expect(priceOf(table, "my-model")).toEqual({ input: 1, cachedInput: 0.5, output: 3 });
    expect(priceOf(table, "gemini-2.5-pro")).toBeUndefined();
  });

  it("refuses a bad price file with an error naming the variable, the file and the field", () => {
    const cases: [string, RegExp][] = [
      ["{not json", /cannot read the Gemini price file/],
      ["[]", /must hold a JSON object/],
      ['{"model": {}}', /"model" is not a known key/],
      ['{"models": {"m": {"input": -1, "output": 1}}}', /models\["m"\]\.input must be a non-negative number/],
      ['{"models": {"m": {"input": 1}}}', /models\["m"\]\.output must be/],
      ['{"models": {"m": {"input": 1, "output": 1, "cache": 1}}}', /models\["m"\]\.cache is not a known key/],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const path = file(`bad-${i}.json`, text);
      const load = () => loadGeminiPrices({ WHILLY_GEMINI_PRICES: path });
      expect(load).toThrow(ConfigurationError);
      expect(load).toThrow(message);
      expect(load).toThrow(`WHILLY_GEMINI_PRICES=${path}`);
    }
    expect(() => loadGeminiPrices({ WHILLY_GEMINI_PRICES: join(dir, "missing.json") })).toThrow(
      /WHILLY_GEMINI_PRICES=.*ENOENT/,
    );
  });
});
