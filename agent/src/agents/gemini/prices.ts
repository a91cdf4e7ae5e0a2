import { readFileSync } from "node:fs";
import { ConfigurationError } from "@whilly/core";
import bundled from "./prices.json" with { type: "json" };

/** One model's prices, USD per million tokens; thinking tokens are billed as `output`. */
export type GeminiModelPrice = {
  readonly input: number;
  /** Prompt tokens served from the cache; defaults to `input`. */
  readonly cachedInput: number;
  readonly output: number;
};

/** Prices by model name. */
export type GeminiPriceTable = ReadonlyMap<string, GeminiModelPrice>;

/** Token counts of one model in a run, as the CLI's `stats.models` reports them. */
export type GeminiModelTokens = {
  /** Prompt tokens not served from the cache. */
  readonly input: number;
  readonly cached: number;
  /** Answer tokens, thinking included. */
  readonly output: number;
};

/** The variable naming a price file that replaces the bundled one. */
export const PRICES_VARIABLE = "WHILLY_GEMINI_PRICES";

/**
 * The price table: the file `WHILLY_GEMINI_PRICES` names, else the bundled `prices.json` (list prices
 * when it was written). The file is JSON: `{"models": {"<model>": {"input": n, "cached_input": n,
 * "output": n}}}`, USD per million tokens, with an optional `note` string.
 * @throws {ConfigurationError} naming the variable and the file when it cannot be read, is not JSON or
 *   breaks the shape (the message names the bad field).
 */
export function loadGeminiPrices(env: Readonly<Record<string, string | undefined>>): GeminiPriceTable {
  const file = env[PRICES_VARIABLE];
  if (file === undefined || file === "") return parsePriceTable(bundled, "the bundled prices.json");
  const where = `${PRICES_VARIABLE}=${file}`;
  const hint = `fix or unset ${PRICES_VARIABLE}; the shape is {"models": {"gemini-2.5-pro": {"input": 1.25, "cached_input": 0.125, "output": 10}}} in USD per million tokens`;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigurationError(`${where}: cannot read the Gemini price file: ${(error as Error).message}`, {
      hint,
      cause: error,
    });
  }
  try {
    return parsePriceTable(value, where);
  } catch (error) {
    throw new ConfigurationError((error as Error).message, { hint, cause: error });
  }
}

/**
 * Checks a parsed price file.
 * @throws {ConfigurationError} naming `where` and the first bad field.
 */
export function parsePriceTable(value: unknown, where: string): GeminiPriceTable {
  const bad = (field: string, what: string) => new ConfigurationError(`${where}: ${field} ${what}`);
  if (!isObject(value)) throw bad("the file", "must hold a JSON object");
  const unknownKey = Object.keys(value).find((k) => k !== "models" && k !== "note");
  if (unknownKey !== undefined) throw bad(`"${unknownKey}"`, 'is not a known key (only "models" and "note")');
  if (!isObject(value.models)) throw bad('"models"', "must be an object of prices by model name");
  const table = new Map<string, GeminiModelPrice>();
  for (const [model, entry] of Object.entries(value.models)) {
    const at = `models["${model}"]`;
    if (!isObject(entry)) throw bad(at, "must be an object with input, cached_input and output");
    const extra = Object.keys(entry).find((k) => !["input", "cached_input", "output"].includes(k));
    if (extra !== undefined) throw bad(`${at}.${extra}`, "is not a known key (input, cached_input, output)");
    const price = (key: string, fallback?: number): number => {
      const n = entry[key] ?? fallback;
      if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
        throw bad(`${at}.${key}`, "must be a non-negative number (USD per million tokens)");
      }
      return n;
    };
    const input = price("input");
    table.set(model, { input, cachedInput: price("cached_input", input), output: price("output") });
  }
  return table;
}

/**
 * The price of a model: its own entry, else the longest entry its name starts with followed by `-`
 * (`gemini-2.5-pro-002` is priced as `gemini-2.5-pro`); a `models/` prefix is ignored.
 * @returns `undefined` for a model the table does not know.
 */
export function priceOf(table: GeminiPriceTable, model: string): GeminiModelPrice | undefined {
  const name = model.replace(/^models\//, "");
  const exact = table.get(name);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const key of table.keys()) {
    if (name.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table.get(best);
}

/**
 * The cost of a run in USD, rounded to six decimals (micro-USD): each model's tokens at its price.
 * @returns the cost and the models the table has no price for (their tokens cost 0 here).
 */
export function geminiCostUsd(
  table: GeminiPriceTable,
  models: ReadonlyMap<string, GeminiModelTokens>,
): { readonly usd: number; readonly unpriced: readonly string[] } {
  let micro = 0;
  const unpriced: string[] = [];
  for (const [model, tokens] of models) {
    const price = priceOf(table, model);
    if (price === undefined) {
      if (tokens.input + tokens.cached + tokens.output > 0) unpriced.push(model);
      continue;
    }
    micro += tokens.input * price.input + tokens.cached * price.cachedInput + tokens.output * price.output;
  }
  return { usd: Math.round(micro) / 1_000_000, unpriced };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
