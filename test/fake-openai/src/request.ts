/** What the fake reads from one `POST /v1/responses` body. */
export type RequestFacts = {
  readonly model: string;
  readonly stream: boolean;
  /** The task id from the first `Task id:` line of the user messages, if any. */
  readonly taskId: string | undefined;
  /** The generation request from a `Generate: <name>` line standing before any task id line. */
  readonly generate: string | undefined;
  /** The attempt from the latest `Attempt: N of M` line of the user messages; 1 when there is none. */
  readonly attempt: number;
  /**
   * Which scripted turn to play: the model responses in the input since the user message holding the
   * latest attempt line (since the start when there is none), so a resumed thread starts the new
   * attempt's story at its first turn. One response is a run of assistant items (messages, function
   * calls, reasoning) with nothing from the user or a tool between them.
   */
  readonly turn: number;
  /** The prompt this turn answers (the user message of the latest attempt line, else the last one), ≤ 16 KiB. */
  readonly prompt: string;
  /** The session's working directory, from Codex's `<cwd>` environment context. */
  readonly cwd: string | undefined;
  /** The names of the function tools offered (others by their `type`, e.g. `web_search`). */
  readonly toolNames: readonly string[];
  /** The tool outputs the CLI sent back since the last response, shortened. */
  readonly toolOutputs: readonly { readonly callId: string; readonly output: string }[];
};

type Item = {
  type?: unknown;
  role?: unknown;
  content?: unknown;
  call_id?: unknown;
  output?: unknown;
};

const TASK_ID = /^[\s>*_#-]*Task id:[\s*_`]*([^\s*`]+)/im;
const GENERATE = /^[\s>*_#-]*Generate:[\s*_`]*([^\s*`]+)/im;
const ATTEMPT = /^[\s>*_#-]*Attempt:\s*(\d+)\s+of\s+\d+/im;
const CWD = /<cwd>([^<]+)<\/cwd>/;
/** The most of a prompt the fake keeps, in characters. */
export const PROMPT_LOG_CHARS = 16 * 1024;

/** Items the model produced (one response is a run of them). */
const MODEL_ITEMS = new Set(["function_call", "reasoning", "custom_tool_call", "local_shell_call"]);

/** Reads the facts the fake needs from a parsed request body. Tolerates any shape. */
export function readRequest(body: unknown): RequestFacts {
  const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const input = (Array.isArray(request.input) ? request.input : []).filter(
    (i): i is Item => typeof i === "object" && i !== null,
  );
  const tools = (Array.isArray(request.tools) ? request.tools : []) as { name?: unknown; type?: unknown }[];
  const toolNames = tools
    .map((t) => (typeof t?.name === "string" ? t.name : typeof t?.type === "string" ? t.type : ""))
    .filter((n) => n !== "");
  const userTexts = input.filter((i) => isUser(i)).map((i) => textOf(i.content));
  const firstTask = firstMatch(userTexts, TASK_ID);
  const firstGenerate = firstMatch(userTexts, GENERATE);
  const generates =
    firstGenerate !== undefined &&
    (firstTask === undefined ||
      firstGenerate.at < firstTask.at ||
      (firstGenerate.at === firstTask.at && firstGenerate.index < firstTask.index));
  return {
    model: typeof request.model === "string" ? request.model : "unknown-model",
    stream: request.stream === true,
    taskId: generates ? undefined : firstTask?.value,
    generate: generates ? firstGenerate?.value : undefined,
    ...attemptAndTurn(input),
    cwd: firstMatch(userTexts, CWD)?.value.trim(),
    toolNames,
    toolOutputs: lastToolOutputs(input),
  };
}

function isUser(item: Item): boolean {
  return item.type === "message" && item.role === "user";
}

function isModel(item: Item): boolean {
  return (item.type === "message" && item.role === "assistant") || MODEL_ITEMS.has(String(item.type));
}

/** The first match of `pattern` in `texts`: its group, the text's position and the match's index. */
function firstMatch(texts: readonly string[], pattern: RegExp) {
  for (const [at, text] of texts.entries()) {
    const m = pattern.exec(text);
    if (m?.[1] !== undefined) return { value: m[1], at, index: m.index };
  }
  return undefined;
}

function attemptAndTurn(input: readonly Item[]): { attempt: number; turn: number; prompt: string } {
  let anchor = -1;
  let attempt = 1;
  for (let i = input.length - 1; i >= 0 && anchor < 0; i -= 1) {
    const item = input[i];
    if (item === undefined || !isUser(item)) continue;
    const found = ATTEMPT.exec(textOf(item.content))?.[1];
    if (found === undefined) continue;
    anchor = i;
    attempt = Math.max(1, Number(found));
  }
  let lastUser = anchor;
  if (anchor < 0) lastUser = lastIndex(input, isUser);
  let turn = 0;
  let inResponse = false;
  for (const item of input.slice(anchor + 1)) {
    const model = isModel(item);
    if (model && !inResponse) turn += 1;
    inResponse = model;
  }
  const prompt = lastUser < 0 ? "" : textOf(input[lastUser]?.content);
  return { attempt, turn, prompt: prompt.slice(0, PROMPT_LOG_CHARS) };
}

/** The text of a message's content: a string, or its `input_text`/`output_text` parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as { text?: unknown }[])
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .filter((t) => t !== "")
    .join("\n");
}

function lastToolOutputs(input: readonly Item[]): RequestFacts["toolOutputs"] {
  const since = lastIndex(input, isModel);
  return input
    .slice(since + 1)
    .filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output")
    .map((i) => ({
      callId: typeof i.call_id === "string" ? i.call_id : "",
      output: (typeof i.output === "string" ? i.output : (JSON.stringify(i.output) ?? "")).slice(0, 500),
    }));
}

function lastIndex(input: readonly Item[], test: (item: Item) => boolean): number {
  for (let i = input.length - 1; i >= 0; i -= 1) {
    const item = input[i];
    if (item !== undefined && test(item)) return i;
  }
  return -1;
}
