import type { RawAgentResult } from "@whilly/core";
import { type GeminiEvent, parseEventLine, stringField, TurnCounter } from "./events.js";
import { type GeminiModelTokens, type GeminiPriceTable, geminiCostUsd } from "./prices.js";

/** The Gemini CLI's exit code for a failed login (`FATAL_AUTHENTICATION_ERROR`); it prints no result then. */
const EXIT_AUTHENTICATION = 41;

/** The error events that mean the session's turn limit (`maxSessionTurns`) ended the run. */
const MAX_TURNS_TEXT = /maximum session turns|max session turns/i;

/** `[API Error: {"error":{"code":401,...}}]`: the HTTP status inside the CLI's wording of an API error. */
const API_ERROR_CODE = /"code"\s*:\s*(\d{3})\b/;

/** How quota and rate limits read once the CLI gave up: a 429 without a code in its text. */
const QUOTA_TEXT =
  /\bRESOURCE_EXHAUSTED\b|resource has been exhausted|quota exceeded for quota metric|exceeded your current quota|exhausted your (?:daily |monthly )?(?:quota|capacity)|rate limit exceeded/i;

/**
 * The process exit codes of the CLI's API errors: it exits with the HTTP status, truncated to a byte
 * (401 → 145, 403 → 147, 429 → 173), when the error text names no status.
 */
const EXIT_STATUS: Readonly<Record<number, number>> = { 145: 401, 147: 403, 173: 429 };

/**
 * Folds the Gemini CLI's `stream-json` output into the result object the shared classifier reads
 * ({@link RawAgentResult}, Claude Code's shape), so one classifier judges every agent:
 * - `result`: the text of the model's last turn (the assistant text after the last tool result);
 * - `subtype`: `success`, `error_max_turns` (the session's turn limit) or `error_during_execution` (the
 *   CLI's result says `error`); `is_error` for either error;
 * - `errors`: the result's error message and every `error`-severity event;
 * - `api_error_status`: the HTTP status of a failed API call (from its text, else a quota wording means
 *   429, else the exit code the CLI derives from the status);
 * - `usage` from `stats` (`input_tokens` not cached, `cache_read_input_tokens`, `output_tokens` with
 *   thinking), `num_turns`, `duration_ms`, `session_id`, and `total_cost_usd` priced from `prices`.
 *
 * Total: never throws. `undefined` when the output holds no `result` event (a run killed or cut off:
 * the classifier then judges by exit code and signal, never a success), except for the CLI's
 * authentication exit (41, no output), which becomes an error result with status 401 so it is seen as
 * missing credentials.
 */
export function geminiResult(
  output: { readonly stdout: string; readonly stderr: string; readonly exitCode: number | null },
  prices: GeminiPriceTable,
): RawAgentResult | undefined {
  const events: GeminiEvent[] = [];
  for (const line of output.stdout.split("\n")) {
    const event = parseEventLine(line);
    if (event !== undefined) events.push(event);
  }
  const final = [...events].reverse().find((e) => e.type === "result");
  if (final === undefined) {
    return output.exitCode === EXIT_AUTHENTICATION ? authFailure(output.stderr) : undefined;
  }
  const { turns, text, sessionId, errors } = readRun(events);
  const failed = final.status !== "success";
  const finalError = isObject(final.error) ? stringField(final.error, "message") : undefined;
  if (finalError !== undefined && finalError !== "") errors.unshift(finalError);
  const maxTurns = errors.some((e) => MAX_TURNS_TEXT.test(e));
  const stats = isObject(final.stats) ? final.stats : {};
  const models = modelTokens(stats);
  const cost = geminiCostUsd(prices, models);
  const status = failed ? apiStatus(errors, output.exitCode) : undefined;
  return {
    type: "result",
    subtype: maxTurns ? "error_max_turns" : failed ? "error_during_execution" : "success",
    is_error: failed || maxTurns,
    result: text,
    session_id: sessionId ?? null,
    num_turns: turns,
    duration_ms: count(stats.duration_ms),
    total_cost_usd: cost.usd,
    usage: totals(models),
    errors,
    permission_denials: [],
    api_error_status: status ?? null,
    ...(cost.unpriced.length === 0 ? {} : { unpriced_models: cost.unpriced }),
  };
}

/** What the events before the result say: turns, the last turn's text, the session id, error events. */
function readRun(events: readonly GeminiEvent[]): {
  turns: number;
  text: string;
  sessionId: string | undefined;
  errors: string[];
} {
  const turns = new TurnCounter();
  let text = "";
  let sessionId: string | undefined;
  const errors: string[] = [];
  for (const event of events) {
    turns.see(event);
    if (event.type === "init") sessionId ??= stringField(event, "session_id");
    // A tool call ends the turn's text: the result is the text after the last one.
    if (event.type === "tool_use") text = "";
    if (event.type === "message" && event.role === "assistant") {
      const content = stringField(event, "content") ?? "";
      text = event.delta === true ? text + content : content;
    }
    const message =
      event.type === "error" && event.severity === "error" ? stringField(event, "message") : undefined;
    if (message !== undefined && message !== "") errors.push(message);
  }
  return { turns: turns.turns, text, sessionId, errors };
}

/** The CLI's own exit for credentials it cannot use: no output, the reason on stderr. */
function authFailure(stderr: string): RawAgentResult {
  const line =
    stderr
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "" && !/^(?:warning:|yolo mode|ripgrep|approval mode)/i.test(l)) ?? "";
  const message = `Gemini CLI authentication failed${line === "" ? "" : `: ${line}`}`;
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    result: message,
    errors: [message],
    api_error_status: 401,
    num_turns: 0,
    total_cost_usd: 0,
  };
}

function apiStatus(errors: readonly string[], exitCode: number | null): number | undefined {
  for (const error of errors) {
    const code = API_ERROR_CODE.exec(error)?.[1];
    if (code !== undefined) return Number(code);
  }
  if (errors.some((e) => QUOTA_TEXT.test(e))) return 429;
  return exitCode === null ? undefined : EXIT_STATUS[exitCode];
}

/** Each model's tokens from `stats.models`; the totals under the session's own model when there is none. */
function modelTokens(stats: Readonly<Record<string, unknown>>): Map<string, GeminiModelTokens> {
  const models = new Map<string, GeminiModelTokens>();
  const entries = isObject(stats.models) ? Object.entries(stats.models) : [];
  for (const [model, value] of entries) {
    if (isObject(value)) models.set(model, tokensOf(value));
  }
  if (models.size === 0) models.set("unknown", tokensOf(stats));
  return models;
}

/**
 * One stats block's tokens: `input_tokens` counts the whole prompt and `cached` the part served from
 * the cache (`input` is the rest); `total_tokens` adds thinking to `input_tokens + output_tokens`.
 */
function tokensOf(block: Readonly<Record<string, unknown>>): GeminiModelTokens {
  const prompt = count(block.input_tokens);
  const cached = Math.min(count(block.cached), prompt);
  const answer = count(block.output_tokens);
  const thinking = Math.max(0, count(block.total_tokens) - prompt - answer);
  return { input: prompt - cached, cached, output: answer + thinking };
}

function totals(models: ReadonlyMap<string, GeminiModelTokens>): Record<string, number> {
  let input = 0;
  let cached = 0;
  let output = 0;
  for (const t of models.values()) {
    input += t.input;
    cached += t.cached;
    output += t.output;
  }
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
