import type { RawObject } from "./find-result.js";
import type { AgentRunReport, AgentUnavailableKind } from "./outcome.js";

/** What to do about each {@link AgentUnavailableKind}, printed as the runner's `hint:`. */
export const AGENT_UNAVAILABLE_HINTS: Readonly<Record<AgentUnavailableKind, string>> = {
  auth: "run `claude /login` or set ANTHROPIC_API_KEY for the user whilly runs as, then run again",
  install:
    "install Claude Code (npm install -g @anthropic-ai/claude-code) or set CLAUDE_BIN to its path, then run again",
};

/** Spawn errors of a binary that is not there or cannot be executed. */
const INSTALL_SPAWN_CODES = new Set(["ENOENT", "EACCES", "ENOEXEC", "EISDIR"]);

/**
 * What Claude Code prints when it has no usable credentials: `Not logged in · Please run /login`,
 * `Invalid API key · Please run /login`, `Failed to authenticate. API Error: 401 ...`, an
 * `authentication_error` body, an expired OAuth token.
 */
const AUTH_TEXT =
  /not logged in|please run \/login|invalid api key|failed to authenticate|authentication_error|oauth token (?:has )?expired|invalid bearer token/i;

/**
 * What the Gemini CLI prints when it has no usable credentials: the API's `API key not valid. Please
 * pass a valid API key.` (`API_KEY_INVALID`), `API key expired`, and its own `When using Gemini API, you
 * must specify the GEMINI_API_KEY environment variable.` and `Please set an Auth method in your ...`.
 */
const GEMINI_AUTH_TEXT =
  /api key not valid|\bAPI_KEY_INVALID\b|api key expired|must specify the GEMINI_API_KEY|please set an auth method/i;

/** What Claude Code's launcher prints when its native binary was never installed (install scripts skipped). */
const INSTALL_TEXT = /native binary not installed/i;

/**
 * Tells whether a failed run shows the agent cannot run here. Only failed runs count: a successful
 * run whose text mentions a login is a task that succeeded. With a result JSON, the failure must be an
 * API error (`is_error`) answered 401 or worded as an authentication failure; without one, what the
 * process printed must say so, or its exit code be the shell's 126/127 (not executable, not found).
 * @returns the kind, or `undefined` when the run is an ordinary failure (or a success).
 */
export function agentUnavailable(
  run: AgentRunReport,
  json: RawObject | undefined,
  texts: readonly string[],
): AgentUnavailableKind | undefined {
  if (run.spawnError) {
    return INSTALL_SPAWN_CODES.has(run.spawnError.code ?? "") ? "install" : undefined;
  }
  if (run.timedOut || run.stalled || run.aborted) return undefined;
  if (json !== undefined) return fromResult(run, json, texts);
  if (run.exitCode === 0 || run.signal !== null) return undefined;
  const printed = `${run.stdout}\n${run.stderr}`;
  if (AUTH_TEXT.test(printed) || GEMINI_AUTH_TEXT.test(printed)) return "auth";
  if (run.exitCode === 126 || run.exitCode === 127) return "install";
  return INSTALL_TEXT.test(printed) ? "install" : undefined;
}

/** With a result JSON: an API error answered 401 or 403, or worded as an authentication failure. */
function fromResult(
  run: AgentRunReport,
  json: RawObject,
  texts: readonly string[],
): AgentUnavailableKind | undefined {
  if (json.is_error !== true && run.exitCode === 0) return undefined;
  if (json.api_error_status === 401 || json.api_error_status === 403) return "auth";
  return texts.some((t) => AUTH_TEXT.test(t) || GEMINI_AUTH_TEXT.test(t)) ? "auth" : undefined;
}
