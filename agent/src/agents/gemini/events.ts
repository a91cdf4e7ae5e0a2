/** A line longer than this is not an event worth parsing (a huge tool output); bytes. */
export const MAX_EVENT_LINE = 1024 * 1024;

/**
 * One event of the Gemini CLI's `--output-format stream-json` output (one JSON object per line): `init`
 * (`session_id`, `model`), `message` (`role` `user` or `assistant`, `content`, `delta: true` for a piece
 * of streamed text), `tool_use` (`tool_name`, `tool_id`, `parameters`), `tool_result` (`tool_id`,
 * `status`, `output`, `error`), `error` (`severity` `warning` or `error`, `message`: a non-fatal problem
 * such as a loop or the session's turn limit) and the final `result` (`status` `success` or `error`,
 * `error {type, message}`, `stats`). Fields are read by name; anything else is ignored.
 */
export type GeminiEvent = { readonly type: string; readonly [key: string]: unknown };

/**
 * The event a line holds, or `undefined` for a line that is not a JSON object with a string `type`
 * (a banner, a warning, a cut-off line). Never throws.
 */
export function parseEventLine(line: string): GeminiEvent | undefined {
  const text = line.trim();
  if (!text.startsWith("{") || !text.endsWith("}") || text.length > MAX_EVENT_LINE) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const event = value as { type?: unknown };
  return typeof event.type === "string" ? (value as GeminiEvent) : undefined;
}

/** A field as a string, or `undefined` for anything else. */
export function stringField(
  event: GeminiEvent | Readonly<Record<string, unknown>>,
  key: string,
): string | undefined {
  const value = event[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * Follows the turns of a run through its events: a turn is one answer of the model (its text, its tool
 * calls, or both); a tool result ends it, so the next text or tool call starts the next turn. Several
 * tool calls before their results belong to one turn.
 */
export class TurnCounter {
  private count = 0;
  private open = false;
  private tool: string | undefined;

  /** Turns so far. */
  get turns(): number {
    return this.count;
  }

  /** The last tool the model called. */
  get lastTool(): string | undefined {
    return this.tool;
  }

  /** Feeds one event; returns true when the turns or the last tool changed. */
  see(event: GeminiEvent): boolean {
    if (event.type === "tool_result") {
      this.open = false;
      return false;
    }
    const assistantText = event.type === "message" && event.role === "assistant";
    if (!assistantText && event.type !== "tool_use") return false;
    let changed = false;
    if (!this.open) {
      this.open = true;
      this.count += 1;
      changed = true;
    }
    const name = event.type === "tool_use" ? stringField(event, "tool_name") : undefined;
    if (name !== undefined && name !== this.tool) {
      this.tool = name;
      changed = true;
    }
    return changed;
  }
}
