export { type CodexAdapterOptions, codexArgv, createCodexAdapter, DEFAULT_CODEX_MODEL } from "./adapter.js";
export {
  type CodexPrice,
  type CodexPriceTable,
  codexCost,
  loadCodexPrices,
  PRICES_VARIABLE,
  priceOf,
} from "./prices.js";
export { type CodexOutput, type CodexUsage, foldCodexRun } from "./result.js";
export { CodexStream } from "./stream.js";
