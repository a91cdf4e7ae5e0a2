import type { FakeUsage, ScriptToolUse } from "./script.js";

/** A content block of a fake assistant message. */
export type ReplyBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

/** One assistant message the fake sends, before it is rendered as SSE or JSON. */
export type Reply = {
  readonly id: string;
  readonly model: string;
  readonly content: readonly ReplyBlock[];
  readonly stopReason: "end_turn" | "tool_use";
  readonly usage: FakeUsage;
};

/** Token counts per turn unless a script overrides them; non-zero so the CLI reports a cost. */
export const DEFAULT_USAGE: FakeUsage = {
  input_tokens: 1200,
  output_tokens: 60,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** Builds a reply from text and tool calls; tool ids are unique per message id. */
export function makeReply(args: {
  readonly id: string;
  readonly model: string;
  readonly text: string | undefined;
  readonly tools: readonly ScriptToolUse[];
  readonly usage: FakeUsage;
}): Reply {
  const content: ReplyBlock[] = [];
  if (args.text !== undefined && (args.text !== "" || args.tools.length === 0)) {
    content.push({ type: "text", text: args.text });
  }
  args.tools.forEach((tool, i) => {
    content.push({ type: "tool_use", id: `toolu_${args.id}_${i}`, name: tool.name, input: tool.input });
  });
  return {
    id: args.id,
    model: args.model,
    content,
    stopReason: args.tools.length > 0 ? "tool_use" : "end_turn",
    usage: args.usage,
  };
}

/** The reply as a non-streaming Messages API response body. */
export function replyJson(reply: Reply): string {
  return JSON.stringify({
    id: `msg_${reply.id}`,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage: reply.usage,
  });
}

/**
 * The reply as the Messages API's server-sent events: `message_start`, per block
 * `content_block_start` / `content_block_delta` (`text_delta` or `input_json_delta`) / `content_block_stop`,
 * then `message_delta` (stop reason, output tokens) and `message_stop`.
 */
export function replySse(reply: Reply): string {
  const events: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) => {
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  emit("message_start", {
    message: {
      id: `msg_${reply.id}`,
      type: "message",
      role: "assistant",
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...reply.usage, output_tokens: 1 },
    },
  });
  emit("ping", {});
  reply.content.forEach((block, index) => {
    if (block.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of chunks(block.text, 40)) {
        emit("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      }
    } else {
      emit("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of chunks(JSON.stringify(block.input), 64)) {
        emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
      }
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", {
    delta: { stop_reason: reply.stopReason, stop_sequence: null },
    usage: { output_tokens: reply.usage.output_tokens },
  });
  emit("message_stop", {});
  return events.join("");
}

function chunks(text: string, size: number): string[] {
  if (text === "") return [""];
  const out: string[] = [];
  // Split by code points so a delta never ends inside a surrogate pair.
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** The Anthropic error type for an HTTP status, as the real API names them. */
export function errorType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}
