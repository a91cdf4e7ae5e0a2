/** What the fake reads from one `generateContent` / `streamGenerateContent` body. */
export type GeminiRequestFacts = {
  /** The task id from a `Task id:` line of the latest prompt, if any. */
  readonly taskId: string | undefined;
  /** The generation request of a `Generate: <name>` line coming before any task id line, if any. */
  readonly generate: string | undefined;
  /** The attempt from the prompt's first `Attempt: N of M` line; 1 when there is none. */
  readonly attempt: number;
  /**
   * Which scripted turn to play: the number of model contents since the latest user prompt (a user
   * content with text, not a function response), so a resumed session starts its new prompt at turn 0.
   */
  readonly turn: number;
  /** The latest prompt's text, at most {@link PROMPT_LOG_CHARS} characters. */
  readonly prompt: string;
  /** The first workspace directory the CLI's session context names. */
  readonly cwd: string | undefined;
  /** The function declarations offered. */
  readonly toolNames: readonly string[];
  /** The function responses of the last user content, shortened. */
  readonly toolResults: readonly { readonly name: string; readonly text: string }[];
};

type Part = { text?: unknown; functionResponse?: { name?: unknown; response?: unknown } };
type Content = { role?: unknown; parts?: unknown };

const TASK_ID = /^[\s>*_#-]*Task id:[\s*_`]*([^\s*`]+)/im;
const GENERATE = /^[\s>*_#-]*Generate:[\s*_`]*([^\s*`]+)/im;
const ATTEMPT = /^[\s>*_#-]*Attempt:\s*(\d+)\s+of\s+\d+/im;
const CWD = /Workspace Directories:\**\s*\n\s*-\s*(\S[^\n]*)/;
/** The most of a prompt the fake keeps, in characters. */
export const PROMPT_LOG_CHARS = 16 * 1024;

/** Reads the facts the fake needs from a parsed request body. Tolerates any shape. */
export function readGeminiRequest(body: unknown): GeminiRequestFacts {
  const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const contents = (Array.isArray(request.contents) ? request.contents : []) as Content[];
  const tools = (Array.isArray(request.tools) ? request.tools : []) as { functionDeclarations?: unknown }[];
  const toolNames = tools.flatMap((t) =>
    Array.isArray(t?.functionDeclarations)
      ? (t.functionDeclarations as { name?: unknown }[]).flatMap((f) =>
          typeof f?.name === "string" ? [f.name] : [],
        )
      : [],
  );
  let promptAt = -1;
  for (let i = contents.length - 1; i >= 0; i -= 1) {
    if (contents[i]?.role === "user" && textOf(contents[i]) !== "") {
      promptAt = i;
      break;
    }
  }
  const prompt = promptAt < 0 ? "" : textOf(contents[promptAt]);
  const allText = contents.map(textOf).join("\n");
  const task = TASK_ID.exec(prompt);
  const generation = GENERATE.exec(prompt);
  const generates = generation !== null && (task === null || generation.index < task.index);
  return {
    taskId: generates ? undefined : task?.[1],
    generate: generates ? generation?.[1] : undefined,
    attempt: Math.max(1, Number(ATTEMPT.exec(prompt)?.[1] ?? 1)),
    turn: contents.slice(promptAt + 1).filter((c) => c?.role === "model").length,
    prompt: prompt.slice(0, PROMPT_LOG_CHARS),
    cwd: CWD.exec(allText)?.[1]?.trim(),
    toolNames,
    toolResults: lastToolResults(contents),
  };
}

function partsOf(content: Content | undefined): Part[] {
  return Array.isArray(content?.parts) ? (content.parts as Part[]) : [];
}

function textOf(content: Content | undefined): string {
  return partsOf(content)
    .map((p) => (typeof p?.text === "string" ? p.text : ""))
    .filter((t) => t !== "")
    .join("\n");
}

function lastToolResults(contents: readonly Content[]): GeminiRequestFacts["toolResults"] {
  const last = contents[contents.length - 1];
  if (last?.role !== "user") return [];
  return partsOf(last).flatMap((p) => {
    const response = p?.functionResponse;
    if (typeof response !== "object" || response === null) return [];
    const name = typeof response.name === "string" ? response.name : "";
    return [{ name, text: (JSON.stringify(response.response) ?? "").slice(0, 500) }];
  });
}
