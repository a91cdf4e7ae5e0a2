/** What the fake reads from one `POST /v1/messages` body. */
export type RequestFacts = {
  /** `agent`: the main thread (plays the script); `side`: a tool-less helper call; `warmup`: a warmup ping. */
  readonly kind: "agent" | "side" | "warmup";
  readonly model: string;
  readonly stream: boolean;
  /** The task id from the `Task id:` line of the first user message, if any. */
  readonly taskId: string | undefined;
  /**
   * The generation request from the `Generate: <name>` line of the first user message (whilly's plan and
   * PRD prompts, which have no task id), if any. Of the two lines, the first one in the message counts.
   */
  readonly generate: string | undefined;
  /**
   * The attempt from the latest `Attempt: N of M` line in the user messages' text (whilly's prompt and a
   * resumed session's follow-up both have one); 1 when there is none.
   */
  readonly attempt: number;
  /**
   * Which scripted turn to play: the number of assistant messages since the user message that holds
   * that latest attempt line (since the start when there is none), so a resumed session starts the new
   * attempt's story at its first turn.
   */
  readonly turn: number;
  /**
   * The prompt this turn answers: the text of the user message holding the latest attempt line (else of
   * the first user message), at most {@link PROMPT_LOG_CHARS} characters from its start.
   */
  readonly prompt: string;
  /** From `Primary working directory:` in the system prompt. */
  readonly cwd: string | undefined;
  readonly toolNames: readonly string[];
  /** The tool results the CLI sent back in the last user message, shortened. */
  readonly toolResults: readonly { readonly id: string; readonly isError: boolean; readonly text: string }[];
};

type Block = { type?: unknown; text?: unknown; content?: unknown; tool_use_id?: unknown; is_error?: unknown };
type Message = { role?: unknown; content?: unknown };

const TASK_ID = /^[\s>*_#-]*Task id:[\s*_`]*([^\s*`]+)/im;
const GENERATE = /^[\s>*_#-]*Generate:[\s*_`]*([^\s*`]+)/im;
const CWD = /Primary working directory:\s*(\S[^\n]*)/;
/** The most of a prompt the fake keeps, in characters. */
export const PROMPT_LOG_CHARS = 16 * 1024;

const ATTEMPT = /^[\s>*_#-]*Attempt:\s*(\d+)\s+of\s+\d+/im;

/** Reads the facts the fake needs from a parsed request body. Tolerates any shape. */
export function readRequest(body: unknown): RequestFacts {
  const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const messages = (Array.isArray(request.messages) ? request.messages : []) as Message[];
  const tools = (Array.isArray(request.tools) ? request.tools : []) as { name?: unknown }[];
  const toolNames = tools.map((t) => (typeof t.name === "string" ? t.name : "")).filter((n) => n !== "");
  const firstUser = messages.find((m) => m.role === "user");
  const firstText = firstUser ? textOf(firstUser.content) : "";
  const systemText = textOf(request.system);

  const task = TASK_ID.exec(firstText);
  const generation = GENERATE.exec(firstText);
  const generates = generation !== null && (task === null || generation.index < task.index);
  // A generation prompt runs with every tool disabled, so "no tools" does not make it a side request.
  let kind: RequestFacts["kind"] = toolNames.length === 0 && !generates ? "side" : "agent";
  if (firstText.trim() === "Warmup") kind = "warmup";

  return {
    kind,
    model: typeof request.model === "string" ? request.model : "unknown-model",
    stream: request.stream === true,
    taskId: generates ? undefined : task?.[1],
    generate: generates ? generation?.[1] : undefined,
    ...attemptAndTurn(messages),
    cwd: CWD.exec(systemText)?.[1]?.trim() ?? CWD.exec(firstText)?.[1]?.trim(),
    toolNames,
    toolResults: lastToolResults(messages),
  };
}

/** The attempt of the latest user message with an attempt line, and the assistant messages after it. */
function attemptAndTurn(messages: readonly Message[]): { attempt: number; turn: number; prompt: string } {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role !== "user") continue;
    const text = promptText(message.content);
    // The message's first attempt line: whilly puts it in the header, before any quoted output.
    const found = ATTEMPT.exec(text)?.[1];
    if (found === undefined) continue;
    const turn = messages.slice(i + 1).filter((m) => m.role === "assistant").length;
    return { attempt: Math.max(1, Number(found)), turn, prompt: text.slice(0, PROMPT_LOG_CHARS) };
  }
  const first = messages.find((m) => m.role === "user");
  return {
    attempt: 1,
    turn: messages.filter((m) => m.role === "assistant").length,
    prompt: (first ? promptText(first.content) : "").slice(0, PROMPT_LOG_CHARS),
  };
}

/** The text a person (or whilly) wrote in a user message: its text blocks, never tool results. */
function promptText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("\n");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) => (typeof b.text === "string" ? b.text : typeof b.content === "string" ? b.content : ""))
    .join("\n");
}

function lastToolResults(messages: readonly Message[]): RequestFacts["toolResults"] {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  return (last.content as Block[])
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      id: typeof b.tool_use_id === "string" ? b.tool_use_id : "",
      isError: b.is_error === true,
      text: textOf(b.content).slice(0, 500),
    }));
}
