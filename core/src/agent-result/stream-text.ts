/** Only this much of the end of stdout is read for a transcript, in characters: the tail is 4 KiB. */
const WINDOW = 256 * 1024;

/** Longest text kept of one tool call's input or one tool result, in characters. */
const PIECE = 400;

type Event = {
  type?: unknown;
  subtype?: unknown;
  message?: unknown;
  attempt?: unknown;
  error_status?: unknown;
};
type Block = { type?: unknown; text?: unknown; name?: unknown; input?: unknown; content?: unknown };

/**
 * Claude Code's `stream-json` output as people read it, for the output tail of a run that ended without
 * a result (a stall, a timeout, a kill): the agent's text, `[tool Bash] {"command":…}` per tool call,
 * `[result] …` per tool result, `[api retry N: 529]` per API retry; lines that are not events stay as
 * they are. Reads only the end of the output.
 * @returns the transcript, or `undefined` when the output holds no stream event (then the raw output is kept).
 */
export function streamTranscript(stdout: string): string | undefined {
  let text = stdout.length > WINDOW ? stdout.slice(stdout.length - WINDOW) : stdout;
  if (text.length < stdout.length) text = text.slice(text.indexOf("\n") + 1);
  const out: string[] = [];
  let events = 0;
  for (const line of text.split("\n")) {
    const event = parseEvent(line);
    if (event === undefined) {
      if (line.trim() !== "") out.push(line);
      continue;
    }
    events += 1;
    out.push(...render(event));
  }
  return events === 0 ? undefined : out.join("\n");
}

function parseEvent(line: string): Event | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (typeof value !== "object" || value === null) return undefined;
    const event = value as Event;
    return event.type === "system" || event.type === "assistant" || event.type === "user" ? event : undefined;
  } catch {
    return undefined;
  }
}

function render(event: Event): string[] {
  if (event.type === "system") {
    if (event.subtype !== "api_retry") return [];
    const status = typeof event.error_status === "number" ? `: ${event.error_status}` : "";
    return [`[api retry ${String(event.attempt ?? "?")}${status}]`];
  }
  const message = (typeof event.message === "object" && event.message !== null ? event.message : {}) as {
    content?: unknown;
  };
  const blocks: Block[] = Array.isArray(message.content) ? (message.content as Block[]) : [];
  return blocks.flatMap((block): string[] => {
    if (block.type === "text" && typeof block.text === "string") return [block.text];
    if (block.type === "tool_use") {
      return [`[tool ${String(block.name ?? "?")}] ${short(JSON.stringify(block.input ?? {}) ?? "")}`];
    }
    if (block.type === "tool_result") return [`[result] ${short(resultText(block.content))}`];
    return [];
  });
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[]).map((b) => (typeof b.text === "string" ? b.text : "")).join("\n");
}

function short(text: string): string {
  return text.length > PIECE ? `${text.slice(0, PIECE)}…` : text;
}
