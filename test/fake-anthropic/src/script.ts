/**
 * The script format of the fake Messages API (docs/fake-model.md). A script maps task ids to the turns
 * the fake model plays; the task id comes from the `Task id: <ID>` line of the session's first user
 * message, so parallel sessions each follow their own story. `generate` maps generation requests (the
 * `Generate: <name>` line of whilly's plan and PRD prompts) to stories the same way. `default` plays
 * for every other task.
 * A task may tell a different story per attempt (`attempts`), the attempt read from the latest
 * `Attempt: N of M` line of the request's user messages. Strings may hold `{{cwd}}` (the session's
 * working directory), `{{task}}`, `{{turn}}` and `{{attempt}}`.
 */
export type FakeScript = {
  /** Stories by task id. */
  readonly tasks?: Readonly<Record<string, TaskEntry>>;
  /**
   * Stories by generation request (`plan`, `prd`), for prompts with a `Generate: <name>` line instead of a
   * task id: whilly's plan generation and PRD writing. The attempt comes from the prompt's attempt line.
   */
  readonly generate?: Readonly<Record<string, TaskEntry>>;
  /** Played for sessions whose task id (or generation request) is missing or not scripted. */
  readonly default?: TaskEntry;
  /** The answer to tool-less side requests (titles, bash-prefix checks, path extraction). */
  readonly side_text?: string;
  /** A fault served to every agent request whose turn and story have none of their own. */
  readonly fault?: ScriptFault;
};

/** A task's entry: one story for every attempt, or a story per attempt. */
export type TaskEntry = TaskScript | AttemptScripts;

/** A story per attempt: attempt N plays `attempts[N-1]`; attempts past the end play the last one. */
export type AttemptScripts = { readonly attempts: readonly TaskScript[] };

/** One task's story. */
export type TaskScript = {
  readonly turns: readonly ScriptTurn[];
  /** A fault served on every turn that has none of its own. */
  readonly fault?: ScriptFault;
  /** The answer once the turns are used up. */
  readonly exhausted_text?: string;
};

/** One model turn: text, tool calls, or both (text first). An empty turn answers with empty text. */
export type ScriptTurn = {
  readonly text?: string;
  readonly tool_use?: ScriptToolUse;
  readonly tool_uses?: readonly ScriptToolUse[];
  /** Token counts reported for this turn; the CLI prices them, so they steer `total_cost_usd`. */
  readonly usage?: Partial<FakeUsage>;
  /** Serve this failure instead of the turn; once its `times` are used up, the turn is played (see {@link ScriptFault}). */
  readonly fault?: ScriptFault;
  /** Wait this long (ms) before answering. */
  readonly delay_ms?: number;
};

/** A tool call the fake model makes; `input` is sent as the tool's JSON input. */
export type ScriptToolUse = { readonly name: string; readonly input: Readonly<Record<string, unknown>> };

/**
 * A failure: an HTTP error status (`{"status": 500}`, with an Anthropic error body), a malformed
 * 200 answer (`"malformed"`), or no answer at all (`"hang"`, the socket stays open). `times` limits the
 * fault to the first N requests for that turn of that session, so a retry can then succeed; `for_ms`
 * holds it for a span of time instead: every request it covers fails from the first one until `for_ms`
 * ms have passed (one clock per turn of a task's attempt, per story, or for the whole script, shared by
 * every session), then the turns play.
 */
export type ScriptFault =
  | "malformed"
  | "hang"
  | {
      readonly status?: number;
      readonly kind?: "malformed" | "hang";
      readonly times?: number;
      readonly for_ms?: number;
      readonly message?: string;
      readonly retry_after?: number;
    };

/** Token counts in the Messages API's names. */
export type FakeUsage = {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
};

/** Thrown for a script that does not follow {@link FakeScript}; `path` names the bad field, `detail` says what is wrong. */
export class ScriptError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "ScriptError";
  }
}

/** The keys each object of a script may hold: anything else is a typo the fake would otherwise ignore. */
const KEYS = {
  script: ["tasks", "generate", "default", "side_text", "fault"],
  story: ["turns", "fault", "exhausted_text"],
  entry: ["turns", "fault", "exhausted_text", "attempts"],
  turn: ["text", "tool_use", "tool_uses", "usage", "fault", "delay_ms"],
  tool: ["name", "input"],
  usage: ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"],
  fault: ["status", "kind", "times", "for_ms", "message", "retry_after"],
} as const;

/**
 * Checks a parsed script file and returns it typed. Strict: an unknown key anywhere (say `"task"` for
 * `"tasks"`) is an error naming it and the keys allowed there, since a script is a test's own input.
 * @throws {ScriptError} naming the first field that is wrong.
 */
export function validateScript(value: unknown): FakeScript {
  const root = asObject(value, "script", KEYS.script);
  if (root.tasks !== undefined) {
    const tasks = asObject(root.tasks, "tasks");
    for (const [id, task] of Object.entries(tasks)) checkTask(task, `tasks.${id}`);
  }
  if (root.generate !== undefined) {
    const requests = asObject(root.generate, "generate");
    for (const [name, entry] of Object.entries(requests)) checkTask(entry, `generate.${name}`);
  }
  if (root.default !== undefined) checkTask(root.default, "default");
  if (root.side_text !== undefined && typeof root.side_text !== "string") {
    throw new ScriptError("side_text", "must be a string");
  }
  if (root.fault !== undefined) checkFault(root.fault, "fault");
  return value as FakeScript;
}

/** A task entry: a story, or `{"attempts": [story, ...]}` (nothing else beside it). */
function checkTask(value: unknown, path: string): void {
  const entry = asObject(value, path, KEYS.entry);
  if (entry.attempts === undefined) {
    checkStory(entry, path);
    return;
  }
  const others = Object.keys(entry).filter((key) => key !== "attempts");
  if (others.length > 0) {
    throw new ScriptError(
      `${path}.${others[0]}`,
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
  const task = asObject(value, path, KEYS.story);
  if (!Array.isArray(task.turns)) throw new ScriptError(`${path}.turns`, "must be an array");
  for (const [i, turn] of (task.turns as unknown[]).entries()) checkTurn(turn, `${path}.turns[${i}]`);
  if (task.fault !== undefined) checkFault(task.fault, `${path}.fault`);
  if (task.exhausted_text !== undefined && typeof task.exhausted_text !== "string") {
    throw new ScriptError(`${path}.exhausted_text`, "must be a string");
  }
}

function checkTurn(value: unknown, path: string): void {
  const turn = asObject(value, path, KEYS.turn);
  if (turn.text !== undefined && typeof turn.text !== "string")
    throw new ScriptError(`${path}.text`, "must be a string");
  if (turn.tool_use !== undefined) checkToolUse(turn.tool_use, `${path}.tool_use`);
  if (turn.tool_uses !== undefined) {
    if (!Array.isArray(turn.tool_uses)) throw new ScriptError(`${path}.tool_uses`, "must be an array");
    for (const [i, t] of (turn.tool_uses as unknown[]).entries()) checkToolUse(t, `${path}.tool_uses[${i}]`);
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

function checkToolUse(value: unknown, path: string): void {
  const tool = asObject(value, path, KEYS.tool);
  if (typeof tool.name !== "string" || tool.name === "")
    throw new ScriptError(`${path}.name`, "must be a tool name");
  asObject(tool.input, `${path}.input`);
}

function checkFault(value: unknown, path: string): void {
  if (value === "malformed" || value === "hang") return;
  const fault = asObject(value, path, KEYS.fault);
  const hasStatus = typeof fault.status === "number" && fault.status >= 400 && fault.status <= 599;
  const hasKind = fault.kind === "malformed" || fault.kind === "hang";
  if (!hasStatus && !hasKind) {
    throw new ScriptError(
      path,
      'needs "status" (400-599), "kind" ("malformed" or "hang"), or is "malformed"/"hang"',
    );
  }
  if (fault.times !== undefined && (typeof fault.times !== "number" || fault.times < 1)) {
    throw new ScriptError(`${path}.times`, "must be a positive number");
  }
  if (fault.for_ms !== undefined) {
    if (typeof fault.for_ms !== "number" || !Number.isFinite(fault.for_ms) || fault.for_ms <= 0) {
      throw new ScriptError(`${path}.for_ms`, "must be a positive number of milliseconds");
    }
    if (fault.times !== undefined) {
      throw new ScriptError(`${path}.for_ms`, 'cannot be combined with "times"; give one of them');
    }
  }
  if (fault.message !== undefined && typeof fault.message !== "string") {
    throw new ScriptError(`${path}.message`, "must be a string");
  }
  if (fault.retry_after !== undefined && (typeof fault.retry_after !== "number" || fault.retry_after < 0)) {
    throw new ScriptError(`${path}.retry_after`, "must be a non-negative number of seconds");
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
