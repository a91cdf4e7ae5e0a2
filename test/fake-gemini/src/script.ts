/**
 * The script format of the fake Gemini API. A script maps task ids to the turns the fake model plays; the
 * task id comes from the `Task id: <ID>` line of the session's latest prompt, so parallel sessions each
 * follow their own story. `default` plays for every other session. Strings may hold `{{cwd}}` (the
 * session's workspace directory, from the CLI's session context), `{{task}}` and `{{turn}}`.
 */
export type FakeGeminiScript = {
  /** Stories by task id. */
  readonly tasks?: Readonly<Record<string, GeminiEntry>>;
  /**
   * Stories by generation request (`plan`, `prd`), for prompts with a `Generate: <name>` line instead of
   * a task id: whilly's plan generation and PRD writing.
   */
  readonly generate?: Readonly<Record<string, GeminiEntry>>;
  /** Played for sessions whose task id (or generation request) is missing or not scripted. */
  readonly default?: GeminiEntry;
  /** The answer to side requests (non-streaming `generateContent`, e.g. the CLI's next-speaker check). */
  readonly side_text?: string;
  /** A fault served to every agent request whose turn and story have none of their own. */
  readonly fault?: GeminiFault;
};

/**
 * A task's entry: one story for every attempt, or a story per attempt (`attempts[N-1]` for attempt N,
 * read from the prompt's `Attempt: N of M` line; attempts past the end play the last one).
 */
export type GeminiEntry = GeminiStory | { readonly attempts: readonly GeminiStory[] };

/** One session's story. */
export type GeminiStory = {
  readonly turns: readonly GeminiTurn[];
  /** A fault served on every turn that has none of its own. */
  readonly fault?: GeminiFault;
  /** The answer once the turns are used up. */
  readonly exhausted_text?: string;
};

/** One model turn: text, function calls, or both (text first). An empty turn answers with empty text. */
export type GeminiTurn = {
  readonly text?: string;
  readonly function_calls?: readonly GeminiFunctionCall[];
  /** Token counts reported for this turn (`usageMetadata`). */
  readonly usage?: Partial<GeminiUsage>;
  /** Serve this failure instead of the turn; once its `times` are used up, the turn is played. */
  readonly fault?: GeminiFault;
  /** Wait this long (ms) before answering. */
  readonly delay_ms?: number;
};

/** A function call of the fake model: `args` as the CLI's tool schema declares them (e.g. `write_file`'s `file_path`, `content`). */
export type GeminiFunctionCall = { readonly name: string; readonly args: Readonly<Record<string, unknown>> };

/**
 * A failure: an HTTP error status with a Google API error body (`{"status": 429}`; `quota_id` adds a
 * `QuotaFailure` detail, e.g. a `...PerDay...` id that the CLI treats as final at once; `reason` adds an
 * `ErrorInfo`, e.g. `API_KEY_INVALID`), a stream cut after its first chunk (`"cut"`), a malformed 200
 * (`"malformed"`) or no answer at all (`"hang"`). `times` limits the fault to the first N requests for
 * that turn of that session, so a retry can then succeed.
 */
export type GeminiFault =
  | "cut"
  | "malformed"
  | "hang"
  | {
      readonly status?: number;
      readonly kind?: "cut" | "malformed" | "hang";
      readonly times?: number;
      readonly message?: string;
      readonly quota_id?: string;
      readonly reason?: string;
      /** Seconds, sent as a `RetryInfo` detail. */
      readonly retry_delay?: number;
    };

/** Token counts in the Gemini API's `usageMetadata` terms. */
export type GeminiUsage = {
  readonly prompt_tokens: number;
  readonly candidates_tokens: number;
  readonly cached_tokens: number;
  readonly thoughts_tokens: number;
};

/** Thrown for a script that does not follow {@link FakeGeminiScript}; `path` names the bad field. */
export class GeminiScriptError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "GeminiScriptError";
  }
}

const KEYS = {
  script: ["tasks", "generate", "default", "side_text", "fault"],
  story: ["turns", "fault", "exhausted_text"],
  entry: ["turns", "fault", "exhausted_text", "attempts"],
  turn: ["text", "function_calls", "usage", "fault", "delay_ms"],
  call: ["name", "args"],
  usage: ["prompt_tokens", "candidates_tokens", "cached_tokens", "thoughts_tokens"],
  fault: ["status", "kind", "times", "message", "quota_id", "reason", "retry_delay"],
} as const;

const KINDS = ["cut", "malformed", "hang"];

/**
 * Checks a parsed script and returns it typed. Strict: an unknown key anywhere is an error naming it and
 * the keys allowed there, since a script is a test's own input.
 * @throws {GeminiScriptError} naming the first field that is wrong.
 */
export function validateGeminiScript(value: unknown): FakeGeminiScript {
  const root = asObject(value, "script", KEYS.script);
  for (const group of ["tasks", "generate"] as const) {
    if (root[group] === undefined) continue;
    for (const [id, entry] of Object.entries(asObject(root[group], group)))
      checkEntry(entry, `${group}.${id}`);
  }
  if (root.default !== undefined) checkEntry(root.default, "default");
  if (root.side_text !== undefined && typeof root.side_text !== "string") {
    throw new GeminiScriptError("side_text", "must be a string");
  }
  if (root.fault !== undefined) checkFault(root.fault, "fault");
  return value as FakeGeminiScript;
}

/** A story, or `{"attempts": [story, ...]}` with nothing beside it. */
function checkEntry(value: unknown, path: string): void {
  const entry = asObject(value, path, KEYS.entry);
  if (entry.attempts === undefined) {
    checkStory(entry, path);
    return;
  }
  const other = Object.keys(entry).find((key) => key !== "attempts");
  if (other !== undefined) {
    throw new GeminiScriptError(
      `${path}.${other}`,
      'cannot stand beside "attempts"; put it in each attempt\'s story',
    );
  }
  if (!Array.isArray(entry.attempts) || entry.attempts.length === 0) {
    throw new GeminiScriptError(`${path}.attempts`, "must be a non-empty array of stories");
  }
  for (const [i, story] of (entry.attempts as unknown[]).entries())
    checkStory(story, `${path}.attempts[${i}]`);
}

function checkStory(value: unknown, path: string): void {
  const story = asObject(value, path, KEYS.story);
  if (!Array.isArray(story.turns)) throw new GeminiScriptError(`${path}.turns`, "must be an array");
  for (const [i, turn] of (story.turns as unknown[]).entries()) checkTurn(turn, `${path}.turns[${i}]`);
  if (story.fault !== undefined) checkFault(story.fault, `${path}.fault`);
  if (story.exhausted_text !== undefined && typeof story.exhausted_text !== "string") {
    throw new GeminiScriptError(`${path}.exhausted_text`, "must be a string");
  }
}

function checkTurn(value: unknown, path: string): void {
  const turn = asObject(value, path, KEYS.turn);
  if (turn.text !== undefined && typeof turn.text !== "string") {
    throw new GeminiScriptError(`${path}.text`, "must be a string");
  }
  if (turn.function_calls !== undefined) checkCalls(turn.function_calls, `${path}.function_calls`);
  if (turn.usage !== undefined) {
    for (const [key, n] of Object.entries(asObject(turn.usage, `${path}.usage`, KEYS.usage))) {
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
        throw new GeminiScriptError(`${path}.usage.${key}`, "must be a non-negative integer");
      }
    }
  }
  if (turn.fault !== undefined) checkFault(turn.fault, `${path}.fault`);
  if (turn.delay_ms !== undefined && (typeof turn.delay_ms !== "number" || turn.delay_ms < 0)) {
    throw new GeminiScriptError(`${path}.delay_ms`, "must be a non-negative number");
  }
}

function checkCalls(value: unknown, path: string): void {
  if (!Array.isArray(value)) throw new GeminiScriptError(path, "must be an array");
  for (const [i, call] of (value as unknown[]).entries()) {
    const fn = asObject(call, `${path}[${i}]`, KEYS.call);
    if (typeof fn.name !== "string" || fn.name === "") {
      throw new GeminiScriptError(`${path}[${i}].name`, "must be a tool name");
    }
    asObject(fn.args, `${path}[${i}].args`);
  }
}

function checkFault(value: unknown, path: string): void {
  if (typeof value === "string" && KINDS.includes(value)) return;
  const fault = asObject(value, path, KEYS.fault);
  const hasStatus = typeof fault.status === "number" && fault.status >= 400 && fault.status <= 599;
  if (!hasStatus && !KINDS.includes(fault.kind as string)) {
    throw new GeminiScriptError(path, 'needs "status" (400-599) or "kind" ("cut", "malformed" or "hang")');
  }
  if (fault.times !== undefined && (typeof fault.times !== "number" || fault.times < 1)) {
    throw new GeminiScriptError(`${path}.times`, "must be a positive number");
  }
  for (const key of ["message", "quota_id", "reason"] as const) {
    if (fault[key] !== undefined && typeof fault[key] !== "string") {
      throw new GeminiScriptError(`${path}.${key}`, "must be a string");
    }
  }
  if (fault.retry_delay !== undefined && (typeof fault.retry_delay !== "number" || fault.retry_delay < 0)) {
    throw new GeminiScriptError(`${path}.retry_delay`, "must be a non-negative number of seconds");
  }
}

function asObject(value: unknown, path: string, keys?: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GeminiScriptError(path, "must be an object");
  }
  const object = value as Record<string, unknown>;
  const unknown = keys === undefined ? undefined : Object.keys(object).find((key) => !keys.includes(key));
  if (unknown !== undefined) {
    const at = path === "script" ? unknown : `${path}.${unknown}`;
    throw new GeminiScriptError(
      at,
      `unknown key ${JSON.stringify(unknown)}; the keys allowed here are ${keys?.join(", ")}`,
    );
  }
  return object;
}
