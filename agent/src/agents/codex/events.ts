/** One event of `codex exec --json`: a JSON object with a string `type`. */
export type CodexEvent = { readonly type: string; readonly [key: string]: unknown };

/** A line longer than this is not an event worth parsing (a huge command output); characters. */
export const MAX_EVENT_LINE = 1024 * 1024;

/**
 * The event a line holds, or `undefined` for anything else (a banner, a log line, half an event, an
 * array, an object without a string `type`). Never throws.
 */
export function parseEvent(line: string): CodexEvent | undefined {
  const text = line.trim();
  if (!text.startsWith("{") || !text.endsWith("}") || text.length > MAX_EVENT_LINE) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return typeof (value as { type?: unknown }).type === "string" ? (value as CodexEvent) : undefined;
}

/** The events of a whole output, and whether it ends in half an event. */
export type CodexLines = {
  readonly events: readonly CodexEvent[];
  /**
   * True when the output ends in the middle of an event (a line starting `{` that is not a whole
   * event and has no line end): the process was cut off, so the run cannot be a success.
   */
  readonly cut: boolean;
};

/** Splits `codex exec --json` output into its events; lines that are not events are skipped. */
export function readEvents(stdout: string): CodexLines {
  const lines = stdout.split("\n");
  const last = lines.pop() ?? "";
  const events: CodexEvent[] = [];
  for (const line of lines) {
    const event = parseEvent(line);
    if (event !== undefined) events.push(event);
  }
  const tail = parseEvent(last);
  if (tail !== undefined) events.push(tail);
  return { events, cut: tail === undefined && last.trim().startsWith("{") };
}

/** `value` as an object's fields, or an empty object. */
export function fieldsOf(value: unknown): { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as { readonly [key: string]: unknown })
    : {};
}

/** The `item` of an `item.started` / `item.updated` / `item.completed` event, with its `type`. */
export function itemOf(
  event: CodexEvent,
): { readonly type: string; readonly [key: string]: unknown } | undefined {
  if (!event.type.startsWith("item.")) return undefined;
  const item = fieldsOf(event.item);
  return typeof item.type === "string" ? (item as { type: string }) : undefined;
}

/**
 * The tool an item stands for, as progress shows it: `exec_command` (a shell command), `apply_patch`
 * (file changes), the MCP tool's name, `web_search`; `undefined` for messages, reasoning and errors.
 */
export function toolOf(item: { readonly type: string; readonly [key: string]: unknown }): string | undefined {
  switch (item.type) {
    case "command_execution":
      return "exec_command";
    case "file_change":
      return "apply_patch";
    case "mcp_tool_call": {
      const tool = typeof item.tool === "string" && item.tool !== "" ? item.tool : "mcp_tool_call";
      return typeof item.server === "string" && item.server !== "" ? `${item.server}.${tool}` : tool;
    }
    case "web_search":
      return "web_search";
    case "collab_tool_call":
      return typeof item.tool === "string" && item.tool !== "" ? item.tool : "collab_tool_call";
    default:
      return undefined;
  }
}

/** The message of an `error` event, an `error` item or a `turn.failed` event's `error`; `""` for none. */
export function errorMessageOf(event: CodexEvent): string {
  if (event.type === "error") return typeof event.message === "string" ? event.message : "";
  if (event.type === "turn.failed") {
    const message = fieldsOf(event.error).message;
    return typeof message === "string" ? message : "";
  }
  const item = itemOf(event);
  return item?.type === "error" && typeof item.message === "string" ? item.message : "";
}
