import type { GeminiRequestFacts } from "./request.js";
import type {
  FakeGeminiScript,
  GeminiEntry,
  GeminiFault,
  GeminiStory,
  GeminiTurn,
  GeminiUsage,
} from "./script.js";

/** A fault in one shape: an HTTP error with its Google API body, a cut stream, a malformed 200, or no answer. */
export type PlayedFault =
  | {
      readonly kind: "status";
      readonly status: number;
      readonly message: string;
      readonly quotaId?: string;
      readonly reason?: string;
      readonly retryDelay?: number;
    }
  | { readonly kind: "cut" | "malformed" | "hang" };

/** One part of a model content, as the API sends it. */
export type ReplyPart =
  | { readonly text: string }
  | { readonly functionCall: { readonly name: string; readonly args: Readonly<Record<string, unknown>> } };

/** What to answer one request with. */
export type Move =
  | {
      readonly type: "reply";
      readonly parts: readonly ReplyPart[];
      readonly usage: GeminiUsage;
      readonly delayMs: number;
      readonly script: string;
      /** Tool names the turn calls that the request did not offer. */
      readonly missingTools: readonly string[];
    }
  | { readonly type: "fault"; readonly fault: PlayedFault; readonly script: string };

/** Token counts of a turn that names none. */
export const DEFAULT_USAGE: GeminiUsage = {
  prompt_tokens: 1200,
  candidates_tokens: 40,
  cached_tokens: 0,
  thoughts_tokens: 0,
};

const NO_SCRIPT: GeminiStory = { turns: [{ text: "The fake model has no script for this task." }] };

/**
 * Picks the answer for a request: the scripted turn at the request's turn index, of the story for the
 * request's attempt, of the task named in its prompt (or the generation request it names), else of the
 * default story. Stateless except for `counts`, the faults served so
 * far per story and turn (so that `times` can stop them).
 */
export function planMove(
  script: FakeGeminiScript,
  facts: GeminiRequestFacts,
  counts: Map<string, number>,
): Move {
  const [entries, key, label] =
    facts.generate !== undefined
      ? [script.generate, facts.generate, `generate:${facts.generate}`]
      : [script.tasks, facts.taskId, facts.taskId];
  const scripted =
    key !== undefined && entries !== undefined && Object.hasOwn(entries, key) ? entries[key] : undefined;
  const name = scripted !== undefined && label !== undefined ? label : "default";
  const story = storyOf(scripted ?? script.default ?? NO_SCRIPT, facts.attempt);
  const turn: GeminiTurn | undefined = story.turns[facts.turn];
  const fault = dueFault(
    turn?.fault ?? story.fault ?? script.fault,
    `${name}#${facts.attempt}#${facts.turn}`,
    counts,
  );
  if (fault !== undefined) return { type: "fault", fault: playedFault(fault), script: name };
  const fill = (text: string) =>
    text
      .replaceAll("{{cwd}}", facts.cwd ?? ".")
      .replaceAll("{{task}}", facts.taskId ?? "")
      .replaceAll("{{turn}}", String(facts.turn));
  const played = turn ?? { text: story.exhausted_text ?? "The fake model's script is used up." };
  const parts: ReplyPart[] = [];
  if (played.text !== undefined && played.text !== "") parts.push({ text: fill(played.text) });
  for (const call of played.function_calls ?? []) {
    parts.push({ functionCall: { name: call.name, args: fillArgs(call.args, fill) } });
  }
  if (parts.length === 0) parts.push({ text: "" });
  return {
    type: "reply",
    parts,
    usage: { ...DEFAULT_USAGE, ...played.usage },
    delayMs: played.delay_ms ?? 0,
    script: name,
    missingTools: (played.function_calls ?? [])
      .map((c) => c.name)
      .filter((n) => !facts.toolNames.includes(n)),
  };
}

/** The story attempt `attempt` plays: its own, the last one past the end, or the one story. */
function storyOf(entry: GeminiEntry, attempt: number): GeminiStory {
  if (!("attempts" in entry)) return entry;
  const stories = entry.attempts;
  return stories[Math.min(attempt, stories.length) - 1] ?? stories[stories.length - 1] ?? NO_SCRIPT;
}

/** The fault to serve now, if any: one with `times` stops once it was served that often for `key`. */
function dueFault(
  fault: GeminiFault | undefined,
  key: string,
  counts: Map<string, number>,
): GeminiFault | undefined {
  if (fault === undefined) return undefined;
  const served = counts.get(key) ?? 0;
  const times = typeof fault === "string" ? undefined : fault.times;
  if (times !== undefined && served >= times) return undefined;
  counts.set(key, served + 1);
  return fault;
}

function fillArgs(
  args: Readonly<Record<string, unknown>>,
  fill: (text: string) => string,
): Record<string, unknown> {
  return JSON.parse(JSON.stringify(args), (_key, value: unknown) =>
    typeof value === "string" ? fill(value) : value,
  );
}

/** The status texts of Google API errors, by HTTP status. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The messages the real API sends for these statuses, so the CLI words its errors as it would. */
const DEFAULT_MESSAGE: Readonly<Record<number, string>> = {
  401: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
  403: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  429: "Resource has been exhausted (e.g. check quota).",
  500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  503: "The model is overloaded. Please try again later.",
};

function playedFault(fault: GeminiFault): PlayedFault {
  if (typeof fault === "string") return { kind: fault };
  if (fault.status === undefined && fault.kind !== undefined) return { kind: fault.kind };
  const status = fault.status ?? 500;
  return {
    kind: "status",
    status,
    message: fault.message ?? DEFAULT_MESSAGE[status] ?? `fake-gemini injected HTTP ${status}`,
    ...(fault.quota_id === undefined ? {} : { quotaId: fault.quota_id }),
    ...(fault.reason === undefined ? {} : { reason: fault.reason }),
    ...(fault.retry_delay === undefined ? {} : { retryDelay: fault.retry_delay }),
  };
}

/** The Google API error body of a status fault: `{"error": {code, message, status, details}}`. */
export function errorBody(fault: Extract<PlayedFault, { kind: "status" }>): string {
  const details: Record<string, unknown>[] = [];
  if (fault.quotaId !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [
        {
          quotaMetric: "generativelanguage.googleapis.com/generate_content_requests",
          quotaId: fault.quotaId,
        },
      ],
    });
  }
  if (fault.reason !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: fault.reason,
      domain: "googleapis.com",
    });
  }
  if (fault.retryDelay !== undefined) {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${fault.retryDelay}s` });
  }
  const status = STATUS_TEXT[fault.status] ?? "UNKNOWN";
  return JSON.stringify({ error: { code: fault.status, message: fault.message, status, details } });
}

/**
 * The response chunks of a reply, as the streaming API sends them: a text split in two (so the CLI
 * streams deltas), then the function calls; the last chunk carries `finishReason` and `usageMetadata`.
 */
export function replyChunks(
  parts: readonly ReplyPart[],
  usage: GeminiUsage,
  model: string,
  id: string,
): unknown[] {
  const pieces: ReplyPart[] = [];
  for (const part of parts) {
    if ("text" in part && part.text.length > 1) {
      const half = Math.ceil(part.text.length / 2);
      pieces.push({ text: part.text.slice(0, half) }, { text: part.text.slice(half) });
    } else pieces.push(part);
  }
  const usageMetadata = {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.candidates_tokens,
    cachedContentTokenCount: usage.cached_tokens,
    thoughtsTokenCount: usage.thoughts_tokens,
    totalTokenCount: usage.prompt_tokens + usage.candidates_tokens + usage.thoughts_tokens,
  };
  return pieces.map((part, i) => {
    const last = i === pieces.length - 1;
    return {
      candidates: [
        { content: { role: "model", parts: [part] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) },
      ],
      ...(last ? { usageMetadata } : {}),
      modelVersion: model,
      responseId: id,
    };
  });
}

/** The whole reply as one non-streaming `GenerateContentResponse`. */
export function replyJson(
  parts: readonly ReplyPart[],
  usage: GeminiUsage,
  model: string,
  id: string,
): unknown {
  const chunks = replyChunks(parts, usage, model, id) as { usageMetadata?: unknown }[];
  const last = chunks[chunks.length - 1] ?? {};
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, finishReason: "STOP" }],
    usageMetadata: last.usageMetadata,
    modelVersion: model,
    responseId: id,
  };
}
