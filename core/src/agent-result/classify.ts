import { durationText } from "../duration.js";
import { parseUsd } from "../money.js";
import { dropCutFragment, redactSecrets } from "../redact/redact.js";
import { findResultObject, type RawObject } from "./find-result.js";
import { type ProviderLimit, providerLimit } from "./limits.js";
import { COMPLETION_MARKER, endsWithCompletionMarker } from "./marker.js";
import type {
  AgentFailureReason,
  AgentOutcome,
  AgentRunReport,
  AgentUnavailableKind,
  AgentUsage,
  PermissionDenial,
} from "./outcome.js";
import { streamTranscript } from "./stream-text.js";
import { OUTPUT_TAIL_BYTES, outputTail, storableText, utf8Tail } from "./text.js";
import { agentUnavailable } from "./unavailable.js";

type Verdict = {
  readonly reason?: AgentFailureReason;
  readonly message: string;
  readonly unavailable?: AgentUnavailableKind;
  readonly limited?: ProviderLimit;
};

/**
 * Classifies one run of an agent into an {@link AgentOutcome}: from the result its adapter read
 * (`run.result`), else from Claude Code's output (`--output-format json` or `stream-json`, whose last
 * `result` line decides). Total: it never throws, whatever the process printed; pure but
 * for the clock a limit's reset is computed from (`run.now`, default now). Every shape in claude-code-offline.md is handled, measured
 * or reported by users; the failure order is documented on {@link AgentFailureReason}. Success needs all of:
 * exit code 0, `is_error` false, subtype `success`, no `permission_denials`, and the completion marker
 * ending the final `result` text (see {@link endsWithCompletionMarker}); with `resultRule: "exit-code"`
 * the text is not looked at (the checks that follow decide), with `answer` any non-empty text passes.
 */
export function classifyAgentRun(run: AgentRunReport): AgentOutcome {
  const json = run.spawnError ? undefined : resultOf(run);
  const resultText = typeof json?.result === "string" ? json.result : null;
  const subtype = typeof json?.subtype === "string" ? json.subtype : null;
  const denials = readDenials(json);
  const errors = readErrors(json);
  const verdict = judge(run, json, { resultText, subtype, denials, errors });
  const secrets = run.secrets ?? [];
  const clean = (text: string) => storableText(redactSecrets(text, secrets));

  const outcome: AgentOutcome = {
    ok: verdict.reason === undefined,
    message: clean(verdict.message),
    costMicroUsd: readCost(json?.total_cost_usd),
    numTurns: readCount(json?.num_turns),
    durationMs: readCount(json?.duration_ms) || Math.max(0, Math.round(run.wallMs ?? 0)),
    sessionId: typeof json?.session_id === "string" && json.session_id !== "" ? json.session_id : null,
    resultText: resultText === null ? null : clean(resultText),
    subtype,
    exitCode: run.exitCode,
    signal: run.signal,
    usage: readUsage(json?.usage),
    permissionDenials: denials,
    errors: errors.map(clean),
    outputTail: keptTail(transcript(run, json, resultText, errors, denials), clean),
  };
  if (verdict.reason === undefined) return outcome;
  if (verdict.limited !== undefined) {
    const limited = { message: clean(verdict.limited.message), until: verdict.limited.until };
    return { ...outcome, reason: verdict.reason, limited };
  }
  return verdict.unavailable === undefined
    ? { ...outcome, reason: verdict.reason }
    : { ...outcome, reason: verdict.reason, unavailable: verdict.unavailable };
}

/** The adapter's result when the runner passed one (`null`: none), else Claude Code's result object. */
function resultOf(run: AgentRunReport): RawObject | undefined {
  if (run.result !== undefined) return run.result === null ? undefined : (run.result as RawObject);
  return findResultObject(run.stdout) ?? findResultObject(run.stderr);
}

/**
 * The output tail: redaction runs on a window a few times the tail's size (not on megabytes of
 * output), whose cut first word is dropped like the tail's own, so no cut leaves part of a secret.
 */
function keptTail(text: string, clean: (text: string) => string): string {
  const window = utf8Tail(text, OUTPUT_TAIL_BYTES * 4);
  const redacted = clean(window.length < text.length ? dropCutFragment(window) : window);
  return outputTail(redacted, OUTPUT_TAIL_BYTES);
}

type Fields = {
  readonly resultText: string | null;
  readonly subtype: string | null;
  readonly denials: readonly PermissionDenial[];
  readonly errors: readonly string[];
};

function judge(run: AgentRunReport, json: RawObject | undefined, fields: Fields): Verdict {
  const texts = [...fields.errors, fields.resultText ?? ""];
  const unavailable = agentUnavailable(run, json, texts);
  if (unavailable !== undefined) {
    const why = run.spawnError?.message ?? firstLine(fields.errors[0] ?? fields.resultText ?? "");
    const what = why === "" ? firstLine(`${run.stderr}\n${run.stdout}`) : why;
    const cause = unavailable === "auth" ? "has no usable credentials" : "is not installed or not executable";
    return {
      reason: "agent_unavailable",
      unavailable,
      message: `the agent cannot run on this machine: it ${cause}${what === "" ? "" : `: ${what}`}`,
    };
  }
  if (run.spawnError) {
    return { reason: "spawn_failed", message: `could not start the agent: ${run.spawnError.message}` };
  }
  if (run.timedOut) return { reason: "timeout", message: "the agent ran out of time and was killed" };
  if (run.stalled) {
    return { reason: "stalled", message: stallMessage(run.stallTimeoutMs) };
  }
  if (run.aborted)
    return { reason: "aborted", message: "the agent was stopped because the worker is shutting down" };
  const limited = limitOf(run, json, texts);
  if (limited !== undefined) {
    const when = limited.until === undefined ? "" : ` until ${limited.until.toISOString()}`;
    const why = limited.message === "" ? "" : `: ${limited.message}`;
    return { reason: "rate_limited", limited, message: `the provider refused for a limit${when}${why}` };
  }
  if (json === undefined) return judgeWithoutJson(run);
  return judgeResult(run, json, fields);
}

/**
 * Names the stall timeout used and the usual cause: one tool call (a long test suite) that prints
 * nothing until it ends.
 */
function stallMessage(stallTimeoutMs: number | undefined): string {
  const span = stallTimeoutMs === undefined ? "the stall timeout" : durationText(stallTimeoutMs);
  return (
    `no output from the agent for ${span} (--stall-timeout), so it was killed; ` +
    "a tool call that runs longer without printing (a long test suite) needs a larger --stall-timeout"
  );
}

/** A provider limit, for failed runs only (see {@link providerLimit}). */
function limitOf(run: AgentRunReport, json: RawObject | undefined, texts: readonly string[]) {
  const now = run.now ?? new Date();
  if (json !== undefined) {
    if (json.is_error !== true && run.exitCode === 0) return undefined;
    return providerLimit(json, texts, now, run.hostZone);
  }
  if (run.exitCode === 0 || run.signal !== null) return undefined;
  return providerLimit(undefined, [run.stderr, run.stdout], now, run.hostZone);
}

function judgeWithoutJson(run: AgentRunReport): Verdict {
  const stderr = firstLine(run.stderr);
  const because = stderr === "" ? "" : `: ${stderr}`;
  if (run.signal !== null) {
    return { reason: "killed", message: `the agent was killed by ${run.signal} before it printed a result` };
  }
  if (run.stdout.trim() === "") {
    if (run.exitCode !== 0) {
      return { reason: "nonzero_exit", message: `the agent exited with code ${run.exitCode}${because}` };
    }
    return { reason: "no_output", message: `the agent exited 0 but printed nothing${because}` };
  }
  return {
    reason: "parse_error",
    message: `the agent's output holds no result JSON (exit code ${run.exitCode})`,
  };
}

function judgeResult(run: AgentRunReport, json: RawObject, fields: Fields): Verdict {
  const { resultText, subtype, denials, errors } = fields;
  const why = errors[0] ?? firstLine(resultText ?? "");
  const suffix = why === "" ? "" : `: ${why}`;
  if (subtype === "error_max_turns")
    return { reason: "max_turns", message: `the agent hit its turn limit${suffix}` };
  if (subtype === "error_max_budget_usd") {
    return { reason: "max_budget", message: `the agent hit its spending limit${suffix}` };
  }
  if (subtype !== null && subtype !== "success") {
    return { reason: "error_subtype", message: `the agent ended with ${subtype}${suffix}` };
  }
  if (json.is_error === true) return { reason: "is_error", message: `the agent reported an error${suffix}` };
  if (run.exitCode !== 0) {
    const how = run.signal === null ? `exited with code ${run.exitCode}` : `was killed by ${run.signal}`;
    return { reason: "nonzero_exit", message: `the agent ${how}${suffix}` };
  }
  if (denials.length > 0) {
    const tools = [...new Set(denials.map((d) => d.toolName))].join(", ");
    return { reason: "permission_denied", message: `the agent was denied permission to use ${tools}` };
  }
  if (run.resultRule === "exit-code") return { message: "the agent exited 0" };
  if (resultText === null || resultText.trim() === "") {
    return { reason: "empty_result", message: "the agent finished without a final message" };
  }
  if (run.resultRule === "answer") return { message: "the agent answered" };
  if (!endsWithCompletionMarker(resultText)) {
    return {
      reason: "no_marker",
      message: `the agent's final message does not end with ${COMPLETION_MARKER}: ${firstLine(resultText)}`,
    };
  }
  return { message: "the agent completed the task" };
}

function transcript(
  run: AgentRunReport,
  json: RawObject | undefined,
  resultText: string | null,
  errors: readonly string[],
  denials: readonly PermissionDenial[],
): string {
  const parts: string[] = [];
  // The tail keeps the end, so the most telling part goes last: the agent's final text (or raw stdout).
  if (run.spawnError) parts.push(run.spawnError.message);
  if (run.stderr.trim() !== "") parts.push(`[stderr]\n${run.stderr.trimEnd()}`);
  if (errors.length > 0) parts.push(`[errors]\n${errors.join("\n")}`);
  if (denials.length > 0) parts.push(`[permission denied]\n${denials.map((d) => d.toolName).join("\n")}`);
  if (json === undefined) {
    if (run.stdout.trim() !== "") parts.push(streamTranscript(run.stdout) ?? run.stdout.trimEnd());
  } else if (resultText !== null) {
    parts.push(resultText.trimEnd());
  }
  return parts.join("\n");
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function readCost(value: unknown): number {
  if (typeof value !== "number" && typeof value !== "string") return 0;
  return parseUsd(value) ?? 0;
}

function readCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function readUsage(value: unknown): AgentUsage {
  const usage = typeof value === "object" && value !== null ? (value as RawObject) : {};
  return {
    inputTokens: readCount(usage.input_tokens),
    outputTokens: readCount(usage.output_tokens),
    cacheReadTokens: readCount(usage.cache_read_input_tokens),
    cacheCreationTokens: readCount(usage.cache_creation_input_tokens),
  };
}

function readDenials(json: RawObject | undefined): PermissionDenial[] {
  const list = json?.permission_denials;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const denial = typeof item === "object" && item !== null ? (item as RawObject) : {};
    return {
      toolName: typeof denial.tool_name === "string" ? denial.tool_name : "unknown",
      toolUseId: typeof denial.tool_use_id === "string" ? denial.tool_use_id : null,
    };
  });
}

function readErrors(json: RawObject | undefined): string[] {
  const list = json?.errors;
  if (!Array.isArray(list)) return [];
  return list
    .map((e: unknown) => (typeof e === "string" ? e : (JSON.stringify(e) ?? "")))
    .filter((e) => e !== "");
}
