import { readFileSync } from "node:fs";
import { ConfigurationError } from "@whilly/core";
import { z } from "zod";
import builtIn from "./prices.json" with { type: "json" };

/** The variable naming a JSON file of prices that extend or replace the built-in ones. */
export const PRICES_VARIABLE = "WHILLY_CODEX_PRICES";

/** A model's list prices, USD per million tokens. */
export type CodexPrice = {
  readonly input: number;
  /** Input served from the prompt cache; the input price when not given. */
  readonly cached_input: number;
  /** Output, reasoning included (the API counts reasoning tokens as output). */
  readonly output: number;
};

/** Prices by model name. */
export type CodexPriceTable = ReadonlyMap<string, CodexPrice>;

/** Token counts of a run as Codex reports them (`cached` is part of `input`, `reasoning` of `output`). */
export type CodexTokens = {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
};

const usd = z.number().finite().nonnegative();
const priceFileSchema = z
  .object({
    unit: z.string().optional(),
    models: z.record(
      z.string().min(1),
      z.object({ input: usd, cached_input: usd.optional(), output: usd }).strict(),
    ),
  })
  .strict();

/** The table of a parsed price file; `where` names it in errors. */
function tableOf(value: unknown, where: string): Map<string, CodexPrice> {
  const parsed = priceFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
    throw new ConfigurationError(`${where} is not a Codex price table${at}: ${issue?.message ?? "invalid"}`, {
      hint: 'write {"models": {"<model>": {"input": 1.25, "cached_input": 0.125, "output": 10}}} (USD per million tokens)',
    });
  }
  const table = new Map<string, CodexPrice>();
  for (const [model, price] of Object.entries(parsed.data.models)) {
    table.set(model.toLowerCase(), { ...price, cached_input: price.cached_input ?? price.input });
  }
  return table;
}

/**
 * The price table: the built-in one (agent/src/agents/codex/prices.json), with the models of the file
 * {@link PRICES_VARIABLE} names added or replacing built-in ones. Read once, when the adapter is made.
 * @param readFile reads the override file (tests pass their own).
 * @throws {ConfigurationError} naming `WHILLY_CODEX_PRICES` when its file cannot be read, is not JSON,
 *   or is not a price table.
 */
export function loadCodexPrices(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): CodexPriceTable {
  const table = tableOf(builtIn, "the built-in price table");
  const path = env[PRICES_VARIABLE]?.trim();
  if (path === undefined || path === "") return table;
  const where = `${PRICES_VARIABLE} (${path})`;
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new ConfigurationError(`${where} cannot be read: ${(error as Error).message}`, {
      hint: `point ${PRICES_VARIABLE} at a readable JSON file, or unset it to use the built-in prices`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`${where} is not JSON: ${(error as Error).message}`, {
      hint: `fix the file ${PRICES_VARIABLE} names, or unset it to use the built-in prices`,
    });
  }
  for (const [model, price] of tableOf(value, where)) table.set(model, price);
  return table;
}

/** A date suffix of a model snapshot: `gpt-5-codex-2025-09-15`. */
const SNAPSHOT = /-\d{4}-\d{2}-\d{2}$/;

/** The price of `model`: by its name in any case, else without a snapshot date; `undefined` for none. */
export function priceOf(table: CodexPriceTable, model: string): CodexPrice | undefined {
  const name = model.trim().toLowerCase();
  return table.get(name) ?? table.get(name.replace(SNAPSHOT, ""));
}

/**
 * What a run cost, USD: uncached input, cached input and output (reasoning included) at the model's
 * list prices. A model the table does not know costs 0, with a note saying so and how to add it.
 */
export function codexCost(
  tokens: CodexTokens,
  model: string,
  table: CodexPriceTable,
): { readonly usd: number; readonly note?: string } {
  const price = priceOf(table, model);
  if (price === undefined) {
    return {
      usd: 0,
      note: `no price for the Codex model '${model}': its cost is counted as 0; add it to a JSON file named by ${PRICES_VARIABLE}`,
    };
  }
  const cached = Math.min(tokens.cached, tokens.input);
  const micro =
    (tokens.input - cached) * price.input + cached * price.cached_input + tokens.output * price.output;
  return { usd: micro / 1_000_000 };
}
