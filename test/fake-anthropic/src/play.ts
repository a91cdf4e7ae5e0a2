import { DEFAULT_USAGE, makeReply, type Reply } from "./reply.js";
import type { RequestFacts } from "./request.js";
import type { FakeScript, ScriptFault, ScriptToolUse, ScriptTurn, TaskEntry, TaskScript } from "./script.js";

/** A fault in one shape: an HTTP error, a malformed 200, or no answer. */
export type Fault =
  | {
      readonly kind: "status";
      readonly status: number;
      readonly message: string;
      readonly retryAfter?: number;
    }
  | { readonly kind: "malformed" }
  | { readonly kind: "hang" };

/** What to answer one request with. */
export type Move =
  | { readonly type: "reply"; readonly reply: Reply; readonly delayMs: number; readonly script: string }
  | { readonly type: "fault"; readonly fault: Fault; readonly script: string };

const NO_SCRIPT: TaskScript = { turns: [{ text: "The fake model has no script for this task." }] };

/**
 * What faults have done so far: `counts` of faults served per session and turn (for `times`), and
 * `started`, when each `for_ms` fault was first served (ms on `now`'s clock), per clock.
 */
export type FaultState = {
  readonly counts: Map<string, number>;
  readonly started: Map<string, number>;
  /** The clock of `for_ms`, ms; default `performance.now()`. */
  readonly now?: () => number;
};

/** A fresh {@link FaultState}. */
export function newFaultState(now?: () => number): FaultState {
  return { counts: new Map(), started: new Map(), ...(now === undefined ? {} : { now }) };
}

/**
 * Picks the answer for a request: the scripted turn at the request's turn index, of the story for the
 * request's attempt, for the task named in its prompt, or for the generation request it names
 * (`generate`), else the default script. Stateless except for
 * `faults`, which counts faults served (so that `times` can stop them) and keeps when each `for_ms`
 * fault began.
 * @param sessionKey the session's id (else the task id): `times` counts per session and turn.
 */
export function planMove(args: {
  readonly script: FakeScript;
  readonly facts: RequestFacts;
  readonly messageId: string;
  readonly sessionKey: string;
  readonly faults: FaultState;
}): Move {
  const { script, facts, messageId } = args;
  const [scripted, found] =
    facts.generate !== undefined
      ? [entryOf(script.generate, facts.generate), `generate:${facts.generate}`]
      : [entryOf(script.tasks, facts.taskId), facts.taskId];
  const name = scripted && found !== undefined ? found : "default";
  const task = storyOf(scripted ?? script.default ?? NO_SCRIPT, facts.attempt);

  if (facts.kind !== "agent") {
    const text = facts.kind === "warmup" ? "Warm." : (script.side_text ?? "none");
    return { type: "reply", reply: simpleReply(messageId, facts.model, text), delayMs: 0, script: name };
  }
  const turn: ScriptTurn | undefined = task.turns[facts.turn];
  const story = `${name}|attempt ${facts.attempt}`;
  const [chosen, clock] =
    turn?.fault !== undefined
      ? [turn.fault, `${story}|turn ${facts.turn}`]
      : task.fault !== undefined
        ? [task.fault, story]
        : [script.fault, "script"];
  const fault = pendingFault(chosen, {
    count: `${args.sessionKey}|${story}|${facts.kind}|${facts.turn}`,
    clock,
    state: args.faults,
  });
  if (fault !== undefined) return { type: "fault", fault, script: name };

  const vars = {
    cwd: facts.cwd ?? ".",
    task: facts.taskId ?? facts.generate ?? "",
    turn: String(facts.turn),
    attempt: String(facts.attempt),
  };
  if (turn === undefined) {
    const text = fill(task.exhausted_text ?? "The fake model's script for this task is used up.", vars);
    return { type: "reply", reply: simpleReply(messageId, facts.model, text), delayMs: 0, script: name };
  }
  return {
    type: "reply",
    reply: turnReply(turn, messageId, facts.model, vars),
    delayMs: turn.delay_ms ?? 0,
    script: name,
  };
}

/** The entry stored under `key`, if any (own keys only: a task id `constructor` is just an id). */
function entryOf(
  entries: Readonly<Record<string, TaskEntry>> | undefined,
  key: string | undefined,
): TaskEntry | undefined {
  return key !== undefined && entries !== undefined && Object.hasOwn(entries, key) ? entries[key] : undefined;
}

/** The story attempt `attempt` plays: its own, the last one past the end, or the one story. */
function storyOf(entry: TaskEntry, attempt: number): TaskScript {
  if (!("attempts" in entry)) return entry;
  const stories = entry.attempts;
  return stories[Math.min(attempt, stories.length) - 1] ?? stories[stories.length - 1] ?? NO_SCRIPT;
}

/**
 * The fault to serve now, or `undefined` when there is none or it is over: `times` counts the faults
 * served under `keys.count`; `for_ms` holds from the first request on `keys.clock` for that long.
 */
function pendingFault(
  fault: ScriptFault | undefined,
  keys: { readonly count: string; readonly clock: string; readonly state: FaultState },
): Fault | undefined {
  if (fault === undefined) return undefined;
  const normal = normalizeFault(fault);
  const { counts, started } = keys.state;
  if (normal.forMs !== undefined) {
    const now = keys.state.now?.() ?? performance.now();
    const since = started.get(keys.clock);
    if (since === undefined) started.set(keys.clock, now);
    else if (now - since >= normal.forMs) return undefined;
    return normal.fault;
  }
  const served = counts.get(keys.count) ?? 0;
  if (normal.times !== undefined && served >= normal.times) return undefined;
  counts.set(keys.count, served + 1);
  return normal.fault;
}

function turnReply(
  turn: ScriptTurn,
  id: string,
  model: string,
  vars: Readonly<Record<string, string>>,
): Reply {
  const tools: ScriptToolUse[] = [...(turn.tool_use ? [turn.tool_use] : []), ...(turn.tool_uses ?? [])];
  // A turn without tools always carries text, possibly empty: a message needs at least one block.
  const text = turn.text === undefined ? (tools.length === 0 ? "" : undefined) : fill(turn.text, vars);
  return makeReply({
    id,
    model,
    text,
    tools: tools.map((t) => ({ name: t.name, input: fillDeep(t.input, vars) as Record<string, unknown> })),
    usage: { ...DEFAULT_USAGE, ...turn.usage },
  });
}

function simpleReply(id: string, model: string, text: string): Reply {
  return makeReply({
    id,
    model,
    text,
    tools: [],
    usage: { ...DEFAULT_USAGE, input_tokens: 100, output_tokens: 5 },
  });
}

type NormalFault = { fault: Fault; times: number | undefined; forMs: number | undefined };

function normalizeFault(fault: ScriptFault): NormalFault {
  if (fault === "malformed" || fault === "hang") {
    return { fault: { kind: fault }, times: undefined, forMs: undefined };
  }
  const { times, for_ms: forMs } = fault;
  if (fault.kind === "malformed" || fault.kind === "hang")
    return { fault: { kind: fault.kind }, times, forMs };
  const status = fault.status ?? 500;
  const message = fault.message ?? `fake injected HTTP ${status}`;
  const base = { kind: "status" as const, status, message };
  return {
    fault: fault.retry_after === undefined ? base : { ...base, retryAfter: fault.retry_after },
    times,
    forMs,
  };
}

function fill(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => vars[key] ?? whole);
}

function fillDeep(value: unknown, vars: Readonly<Record<string, string>>): unknown {
  if (typeof value === "string") return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, vars));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, vars)]));
  }
  return value;
}
