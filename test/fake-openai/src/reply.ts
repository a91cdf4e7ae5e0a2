import type { FakeUsage } from "./script.js";

/** One output item of a response: a function call or an assistant message. */
export type ReplyItem =
  | {
      readonly type: "function_call";
      readonly id: string;
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  | { readonly type: "message"; readonly id: string; readonly text: string };

/** A response the fake sends. */
export type Reply = {
  readonly id: string;
  readonly model: string;
  readonly items: readonly ReplyItem[];
  readonly usage: FakeUsage;
};

/** Token counts of a turn that names none. */
export const DEFAULT_USAGE: FakeUsage = {
  input_tokens: 1000,
  cached_tokens: 200,
  output_tokens: 50,
  reasoning_tokens: 10,
};

/** The item as the Responses API writes it. */
function itemJson(item: ReplyItem, status: "in_progress" | "completed"): Record<string, unknown> {
  if (item.type === "function_call") {
    return {
      type: "function_call",
      id: item.id,
      call_id: item.callId,
      name: item.name,
      arguments: status === "completed" ? item.arguments : "",
      status,
    };
  }
  const content = status === "completed" ? [{ type: "output_text", text: item.text, annotations: [] }] : [];
  return { type: "message", id: item.id, role: "assistant", status, content };
}

/** The `usage` object of `response.completed`. */
export function usageJson(usage: FakeUsage): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** One server-sent event, named like its `type`. */
export function sseEvent(data: { readonly type: string } & Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The events of a streamed response, in the order the Responses API sends them: `response.created`,
 * per item `response.output_item.added`, a text delta for a message, `response.output_item.done`, then
 * `response.completed` with the usage. Each event is one string, so a fault can stop between them.
 */
export function replyEvents(reply: Reply): string[] {
  const response = { id: reply.id, object: "response", model: reply.model, status: "in_progress" };
  const events = [sseEvent({ type: "response.created", response })];
  for (const [index, item] of reply.items.entries()) {
    events.push(
      sseEvent({
        type: "response.output_item.added",
        output_index: index,
        item: itemJson(item, "in_progress"),
      }),
    );
    if (item.type === "message") {
      events.push(
        sseEvent({
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: item.text,
        }),
      );
    }
    events.push(
      sseEvent({ type: "response.output_item.done", output_index: index, item: itemJson(item, "completed") }),
    );
  }
  events.push(
    sseEvent({
      type: "response.completed",
      response: {
        ...response,
        status: "completed",
        output: reply.items.map((i) => itemJson(i, "completed")),
        usage: usageJson(reply.usage),
      },
    }),
  );
  return events;
}

/** The non-streaming answer: the completed response object. */
export function replyJson(reply: Reply): string {
  return JSON.stringify({
    id: reply.id,
    object: "response",
    model: reply.model,
    status: "completed",
    output: reply.items.map((i) => itemJson(i, "completed")),
    usage: usageJson(reply.usage),
  });
}

/** An OpenAI error body: `{"error": {"message", "type", "code", ...}}`. */
export function errorBody(fields: {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
  readonly resetsInSeconds?: number | undefined;
  readonly resetsAt?: number | undefined;
}): string {
  const error: Record<string, unknown> = {
    message: fields.message,
    type: fields.type,
    param: null,
    code: fields.code,
  };
  if (fields.resetsInSeconds !== undefined) error.resets_in_seconds = fields.resetsInSeconds;
  if (fields.resetsAt !== undefined) error.resets_at = fields.resetsAt;
  return JSON.stringify({ error });
}

/** The error type OpenAI answers an HTTP status with, when a script names none. */
export function errorTypeOf(status: number): string {
  if (status === 401) return "invalid_request_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
