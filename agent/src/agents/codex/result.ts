import type { RawAgentResult } from "@whilly/core";
import { type CodexEvent, errorMessageOf, fieldsOf, itemOf, readEvents } from "./events.js";
import { apiStatusOf, isNoise } from "./failure.js";
import { type CodexPriceTable, codexCost } from "./prices.js";

/** What {@link foldCodexRun} reads: the process's output. */
export type CodexOutput = {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
};

/** Token counts as `turn.completed` reports them, kept beside the mapped ones as `codex_usage`. */
export type CodexUsage = {
  readonly input_tokens: number;
  readonly cached_input_tokens: number;
  readonly cache_write_input_tokens: number;
  readonly output_tokens: number;
  readonly reasoning_output_tokens: number;
};

const CUT_MESSAGE = "Codex's output ends in the middle of an event: the run was cut off";
const UNFINISHED_MESSAGE = "Codex's output ends before its turn completed";

type Fold = {
  thread: string | undefined;
  turns: number;
  completed: number;
  failed: string[];
  errors: string[];
  warnings: string[];
  message: string | undefined;
  usage: CodexUsage | undefined;
};

/**
 * Folds the output of `codex exec --json` into the result shape the shared classifier reads (Claude
 * Code's result object, see `RawAgentResult`): `subtype` `success` when the last turn completed and
 * none failed, else `error_during_execution` with `is_error`; `result` the last agent message;
 * `num_turns` the turns started; `session_id` the thread id; `usage` and `total_cost_usd` from the
 * last `turn.completed` (Codex reports the thread's running total there, so the last one holds the
 * whole run); `errors` the failure's messages; `api_error_status` 429 for a usage or rate limit and 401
 * for credentials (see `apiStatusOf`). Error messages that are noise (an unknown model's metadata, a
 * retry announced), and every error message of a success, go to `codex_warnings` instead. An unknown model costs 0 and
 * says so in `cost_note`.
 * Total: never throws. `undefined` when the output holds no event at all (the classifier then judges
 * by exit code); output cut in the middle of an event is a failure, never a success.
 * @param model the model the run used, for its price.
 */
export function foldCodexRun(
  output: CodexOutput,
  model: string,
  prices: CodexPriceTable,
): RawAgentResult | undefined {
  const { events, cut } = readEvents(output.stdout);
  if (events.length === 0) return undefined;
  const fold: Fold = {
    thread: undefined,
    turns: 0,
    completed: 0,
    failed: [],
    errors: [],
    warnings: [],
    message: undefined,
    usage: undefined,
  };
  let open = false;
  for (const event of events) open = step(fold, event, open);
  const problems = [...fold.failed, ...(cut ? [CUT_MESSAGE] : []), ...(open ? [UNFINISHED_MESSAGE] : [])];
  const ok = problems.length === 0 && fold.completed > 0;
  const errors = ok ? [] : unique([...problems, ...fold.errors]);
  // A success's error messages were retries or notices it got past: kept, but not as errors.
  const warnings = unique(ok ? [...fold.warnings, ...fold.errors] : fold.warnings);
  const usage = fold.usage ?? emptyUsage();
  const cost = codexCost(
    { input: usage.input_tokens, cached: usage.cached_input_tokens, output: usage.output_tokens },
    model,
    prices,
  );
  const status = ok ? undefined : apiStatusOf(errors);
  return {
    type: "result",
    subtype: ok ? "success" : "error_during_execution",
    is_error: !ok,
    result: fold.message ?? (ok ? "" : (errors[0] ?? "")),
    num_turns: fold.turns,
    ...(fold.thread === undefined ? {} : { session_id: fold.thread }),
    total_cost_usd: cost.usd,
    ...(cost.note === undefined ? {} : { cost_note: cost.note }),
    usage: {
      input_tokens: Math.max(0, usage.input_tokens - usage.cached_input_tokens),
      cache_read_input_tokens: usage.cached_input_tokens,
      cache_creation_input_tokens: usage.cache_write_input_tokens,
      output_tokens: usage.output_tokens,
    },
    codex_usage: usage,
    model,
    errors,
    ...(warnings.length === 0 ? {} : { codex_warnings: warnings }),
    ...(status === undefined ? {} : { api_error_status: status }),
  };
}

/** Reads one event into `fold`; returns whether a turn is open (started, not yet ended). */
function step(fold: Fold, event: CodexEvent, open: boolean): boolean {
  switch (event.type) {
    case "thread.started":
      if (typeof event.thread_id === "string" && event.thread_id !== "") fold.thread ??= event.thread_id;
      return open;
    case "turn.started":
      fold.turns += 1;
      return true;
    case "turn.completed":
      fold.completed += 1;
      fold.usage = readUsage(event.usage) ?? fold.usage;
      return false;
    case "turn.failed":
      fold.failed.push(errorMessageOf(event) || "a Codex turn failed without a message");
      return false;
    case "error": {
      const message = errorMessageOf(event);
      if (message !== "") (isNoise(message) ? fold.warnings : fold.errors).push(message);
      return open;
    }
    default:
      if (event.type === "item.completed") readItem(fold, event);
      return open;
  }
}

function readItem(fold: Fold, event: CodexEvent): void {
  const item = itemOf(event);
  if (item?.type === "agent_message" && typeof item.text === "string") fold.message = item.text;
  if (item?.type === "error") {
    const message = errorMessageOf(event);
    if (message !== "") (isNoise(message) ? fold.warnings : fold.errors).push(message);
  }
}

/** A `turn.completed` usage; `undefined` when it is not an object. Counts that are not numbers are 0. */
function readUsage(value: unknown): CodexUsage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const usage = fieldsOf(value);
  const count = (key: string) => {
    const n = usage[key];
    return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
  };
  return {
    input_tokens: count("input_tokens"),
    cached_input_tokens: count("cached_input_tokens"),
    cache_write_input_tokens: count("cache_write_input_tokens"),
    output_tokens: count("output_tokens"),
    reasoning_output_tokens: count("reasoning_output_tokens"),
  };
}

function emptyUsage(): CodexUsage {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    cache_write_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
  };
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
