/**
 * The script format of the fake Responses API. Like the fake Messages API's (test/fake-anthropic): a
 * script maps task ids (the `Task id: <ID>` line of the prompt) to the turns the fake model plays, and
 * generation requests (a `Generate: <name>` line) likewise; `default` plays for every other prompt. A
 * task may tell a different story per attempt (`attempts`, the attempt read from the latest
 * `Attempt: N of M` line). Strings may hold `{{cwd}}` (the session's working directory), `{{task}}`,
 * `{{turn}}` and `{{attempt}}`.
 */
export type FakeScript = {
  readonly tasks?: Readonly<Record<string, TaskEntry>>;
  readonly generate?: Readonly<Record<string, TaskEntry>>;
  readonly default?: TaskEntry;
  /** A fault served to every request whose turn and story have none of their own. */
  readonly fault?: ScriptFault;
};

/** A task's entry: one story for every attempt, or a story per attempt. */
export type TaskEntry = TaskScript | AttemptScripts;

/** A story per attempt: attempt N plays `attempts[N-1]`; attempts past the end play the last one. */
export type AttemptScripts = { readonly attempts: readonly TaskScript[] };

/** One task's story. */
export type TaskScript = {
  readonly turns: readonly ScriptTurn[];
  readonly fault?: ScriptFault;
  /** The answer once the turns are used up. */
  readonly exhausted_text?: string;
};

/**
 * One model response: function calls, a message, or both (calls first, as the model sends them). A
 * turn with calls makes the CLI run them and ask again; a turn with only text ends the CLI's turn.
 */
export type ScriptTurn = {
  readonly text?: string;
  readonly call?: ScriptCall;
  readonly calls?: readonly ScriptCall[];
  /** Token counts of this response; the adapter prices them. */
  readonly usage?: Partial<FakeUsage>;
  /** Serve this failure instead of the turn; once its `times` are used up, the turn is played. */
  readonly fault?: ScriptFault;
  /** Wait this long (ms) before answering. */
  readonly delay_ms?: number;
};

/**
 * A function call the fake model makes; `arguments` is sent JSON-encoded. Codex 0.171's shell tool is
 * `exec_command` with `{"cmd": "...", "workdir": "..."}` (`cmd` is required).
 */
export type ScriptCall = { readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };

/** Token counts in the Responses API's terms (`cached` is part of `input`, `reasoning` of `output`). */
export type FakeUsage = {
  readonly input_tokens: number;
  readonly cached_tokens: number;
  readonly output_tokens: number;
  readonly reasoning_tokens: number;
};

/**
 * A failure: an HTTP error status with an OpenAI error body (`{"status": 429, "type":
 * "usage_limit_reached"}`), or a broken stream: `cut` (the SSE stream stops mid-event and the socket
 * closes), `failed` (a `response.failed` event with `code` and `message`), `malformed` (a 200 whose
 * events are not JSON), `hang` (no answer). `times` limits the fault to the first N requests of that
 * turn, so a retry can then succeed.
 */
export type ScriptFault =
  | FaultKind
  | {
      readonly status?: number;
      readonly kind?: FaultKind;
      readonly times?: number;
      readonly message?: string;
      /** The error body's `type` (e.g. `usage_limit_reached`, `invalid_request_error`). */
      readonly type?: string;
      /** The error body's `code` (e.g. `rate_limit_exceeded`, `invalid_api_key`). */
      readonly code?: string;
      /** A usage limit's `resets_in_seconds` in the error body. */
      readonly resets_in_seconds?: number;
      /** A usage limit's `resets_at` in the error body, Unix seconds. */
      readonly resets_at?: number;
      /** The `retry-after` header, seconds. */
      readonly retry_after?: number;
    };

/** The faults that are not an HTTP status. */
export type FaultKind = "cut" | "failed" | "malformed" | "hang";

const FAULT_KINDS: readonly string[] = ["cut", "failed", "malformed", "hang"];

/** Thrown for a script that does not follow {@link FakeScript}; `path` names the bad field. */
export class ScriptError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "ScriptError";
  }
}

const KEYS = {
  script: ["tasks", "generate", "default", "fault"],
  entry: ["turns", "fault", "exhausted_text", "attempts"],
  turn: ["text", "call", "calls", "usage", "fault", "delay_ms"],
  call: ["name", "arguments"],
  usage: ["input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens"],
  fault: [
    "status",
    "kind",
    "times",
    "message",
    "type",
    "code",
    "resets_in_seconds",
    "resets_at",
    "retry_after",
  ],
} as const;

/**
 * Checks a parsed script and returns it typed. Strict: an unknown key anywhere is an error naming it
 * and the keys allowed there, since a script is a test's own input.
 * @throws {ScriptError} naming the first field that is wrong.
 */
export function validateScript(value: unknown): FakeScript {
  const root = asObject(value, "script", KEYS.script);
  for (const group of ["tasks", "generate"] as const) {
    if (root[group] === undefined) continue;
    for (const [id, entry] of Object.entries(asObject(root[group], group)))
      checkEntry(entry, `${group}.${id}`);
  }
  if (root.default !== undefined) checkEntry(root.default, "default");
  if (root.fault !== undefined) checkFault(root.fault, "fault");
  return value as FakeScript;
}

function checkEntry(value: unknown, path: string): void {
  const entry = asObject(value, path, KEYS.entry);
  if (entry.attempts === undefined) {
    checkStory(entry, path);
    return;
  }
  const other = Object.keys(entry).find((key) => key !== "attempts");
  if (other !== undefined) {
    throw new ScriptError(
      `${path}.${other}`,
      'cannot stand beside "attempts"; put it in each attempt\'s story',
    );
  }
  if (!Array.isArray(entry.attempts) || entry.attempts.length === 0) {
    throw new ScriptError(`${path}.attempts`, "must be a non-empty array of stories");
  }
  for (const [i, story] of (entry.attempts as unknown[]).entries())
    checkStory(story, `${path}.attempts[${i}]`);
}

function checkStory(value: unknown, path: string): void {
  const story = asObject(value, path, KEYS.entry);
  if (story.attempts !== undefined) throw new ScriptError(`${path}.attempts`, "cannot be nested");
  if (!Array.isArray(story.turns)) throw new ScriptError(`${path}.turns`, "must be an array");
  for (const [i, turn] of (story.turns as unknown[]).entries()) checkTurn(turn, `${path}.turns[${i}]`);
  if (story.fault !== undefined) checkFault(story.fault, `${path}.fault`);
  if (story.exhausted_text !== undefined && typeof story.exhausted_text !== "string") {
    throw new ScriptError(`${path}.exhausted_text`, "must be a string");
  }
}

function checkTurn(value: unknown, path: string): void {
  const turn = asObject(value, path, KEYS.turn);
  if (turn.text !== undefined && typeof turn.text !== "string") {
    throw new ScriptError(`${path}.text`, "must be a string");
  }
  if (turn.call !== undefined) checkCall(turn.call, `${path}.call`);
  if (turn.calls !== undefined) {
    if (!Array.isArray(turn.calls)) throw new ScriptError(`${path}.calls`, "must be an array");
    for (const [i, call] of (turn.calls as unknown[]).entries()) checkCall(call, `${path}.calls[${i}]`);
  }
  if (turn.usage !== undefined) {
    for (const [key, n] of Object.entries(asObject(turn.usage, `${path}.usage`, KEYS.usage))) {
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
        throw new ScriptError(`${path}.usage.${key}`, "must be a non-negative integer");
      }
    }
  }
  if (turn.fault !== undefined) checkFault(turn.fault, `${path}.fault`);
  if (turn.delay_ms !== undefined && (typeof turn.delay_ms !== "number" || turn.delay_ms < 0)) {
    throw new ScriptError(`${path}.delay_ms`, "must be a non-negative number");
  }
}

function checkCall(value: unknown, path: string): void {
  const call = asObject(value, path, KEYS.call);
  if (typeof call.name !== "string" || call.name === "") {
    throw new ScriptError(`${path}.name`, "must be a tool name");
  }
  asObject(call.arguments, `${path}.arguments`);
}

function checkFault(value: unknown, path: string): void {
  if (typeof value === "string" && FAULT_KINDS.includes(value)) return;
  const fault = asObject(value, path, KEYS.fault);
  const hasStatus =
    typeof fault.status === "number" &&
    Number.isInteger(fault.status) &&
    fault.status >= 400 &&
    fault.status <= 599;
  const hasKind = typeof fault.kind === "string" && FAULT_KINDS.includes(fault.kind);
  if (hasStatus === hasKind) {
    throw new ScriptError(path, `needs one of "status" (400-599) or "kind" (${FAULT_KINDS.join(", ")})`);
  }
  for (const key of ["times", "resets_in_seconds", "resets_at", "retry_after"] as const) {
    const n = fault[key];
    if (n !== undefined && (typeof n !== "number" || !Number.isFinite(n) || n < (key === "times" ? 1 : 0))) {
      throw new ScriptError(
        `${path}.${key}`,
        key === "times" ? "must be a positive number" : "must be seconds, ≥ 0",
      );
    }
  }
  for (const key of ["message", "type", "code"] as const) {
    if (fault[key] !== undefined && typeof fault[key] !== "string") {
      throw new ScriptError(`${path}.${key}`, "must be a string");
    }
  }
}

/** `value` as an object; with `keys`, one holding no other key. */
function asObject(value: unknown, path: string, keys?: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ScriptError(path, "must be an object");
  }
  const object = value as Record<string, unknown>;
  const unknown = keys === undefined ? undefined : Object.keys(object).find((key) => !keys.includes(key));
  if (unknown !== undefined) {
    const at = path === "script" ? unknown : `${path}.${unknown}`;
    throw new ScriptError(
      at,
      `unknown key ${JSON.stringify(unknown)}; the keys allowed here are ${keys?.join(", ")}`,
    );
  }
  return object;
}
