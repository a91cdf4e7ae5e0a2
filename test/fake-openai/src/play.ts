import { DEFAULT_USAGE, type Reply, type ReplyItem } from "./reply.js";
import type { RequestFacts } from "./request.js";
import type { FakeScript, FaultKind, ScriptFault, ScriptTurn, TaskEntry, TaskScript } from "./script.js";

/** A fault in one shape: an HTTP error, or a broken stream. */
export type Fault =
  | {
      readonly kind: "status";
      readonly status: number;
      readonly message: string | undefined;
      readonly type: string | undefined;
      readonly code: string | undefined;
      readonly resetsInSeconds: number | undefined;
      readonly resetsAt: number | undefined;
      readonly retryAfter: number | undefined;
    }
  | {
      readonly kind: Exclude<FaultKind, "failed">;
    }
  | { readonly kind: "failed"; readonly code: string | undefined; readonly message: string | undefined };

/** What to answer one request with. */
export type Move =
  | { readonly type: "reply"; readonly reply: Reply; readonly delayMs: number; readonly script: string }
  | { readonly type: "fault"; readonly fault: Fault; readonly script: string };

const NO_SCRIPT: TaskScript = { turns: [{ text: "The fake model has no script for this task." }] };

/**
 * Picks the answer for a request: the scripted turn at the request's turn index, of the story for its
 * attempt, for the task (or generation request) its prompt names, else the default story. Stateless
 * but for `served`, which counts the faults served per session and turn so `times` can stop them.
 * @param responseId the id of the response, unique per request; item and call ids derive from it.
 */
export function planMove(args: {
  readonly script: FakeScript;
  readonly facts: RequestFacts;
  readonly responseId: string;
  readonly sessionKey: string;
  readonly served: Map<string, number>;
}): Move {
  const { script, facts } = args;
  const [entry, found] =
    facts.generate !== undefined
      ? [entryOf(script.generate, facts.generate), `generate:${facts.generate}`]
      : [entryOf(script.tasks, facts.taskId), facts.taskId];
  const name = entry !== undefined && found !== undefined ? found : "default";
  const story = storyOf(entry ?? script.default ?? NO_SCRIPT, facts.attempt);
  const turn: ScriptTurn | undefined = story.turns[facts.turn];

  const fault = turn?.fault ?? story.fault ?? script.fault;
  if (fault !== undefined) {
    const key = `${args.sessionKey}|${name}|${facts.attempt}|${facts.turn}`;
    const count = args.served.get(key) ?? 0;
    const normal = normalizeFault(fault);
    if (normal.times === undefined || count < normal.times) {
      args.served.set(key, count + 1);
      return { type: "fault", fault: normal.fault, script: name };
    }
  }
  const vars = {
    cwd: facts.cwd ?? ".",
    task: facts.taskId ?? facts.generate ?? "",
    turn: String(facts.turn),
    attempt: String(facts.attempt),
  };
  const played: ScriptTurn = turn ?? {
    text: story.exhausted_text ?? "The fake model's script for this task is used up.",
  };
  return {
    type: "reply",
    reply: turnReply(played, args.responseId, facts.model, vars),
    delayMs: turn?.delay_ms ?? 0,
    script: name,
  };
}

function entryOf(
  entries: Readonly<Record<string, TaskEntry>> | undefined,
  key: string | undefined,
): TaskEntry | undefined {
  return key !== undefined && entries !== undefined && Object.hasOwn(entries, key) ? entries[key] : undefined;
}

function storyOf(entry: TaskEntry, attempt: number): TaskScript {
  if (!("attempts" in entry)) return entry;
  const stories = entry.attempts;
  return stories[Math.min(attempt, stories.length) - 1] ?? stories[stories.length - 1] ?? NO_SCRIPT;
}

function turnReply(
  turn: ScriptTurn,
  id: string,
  model: string,
  vars: Readonly<Record<string, string>>,
): Reply {
  const calls = [...(turn.call ? [turn.call] : []), ...(turn.calls ?? [])];
  const items: ReplyItem[] = calls.map((call, i) => ({
    type: "function_call",
    id: `fc_${id}_${i}`,
    callId: `call_${id}_${i}`,
    name: call.name,
    arguments: JSON.stringify(fillDeep(call.arguments, vars)),
  }));
  // A response without calls always carries a message, possibly empty.
  if (turn.text !== undefined || calls.length === 0) {
    items.push({ type: "message", id: `msg_${id}`, text: fill(turn.text ?? "", vars) });
  }
  return { id, model, items, usage: { ...DEFAULT_USAGE, ...turn.usage } };
}

function normalizeFault(fault: ScriptFault): { fault: Fault; times: number | undefined } {
  if (typeof fault === "string") {
    return { fault: fault === "failed" ? failed(undefined, undefined) : { kind: fault }, times: undefined };
  }
  const { times } = fault;
  if (fault.kind === "failed") return { fault: failed(fault.code, fault.message), times };
  if (fault.kind !== undefined) return { fault: { kind: fault.kind }, times };
  return {
    fault: {
      kind: "status",
      status: fault.status ?? 500,
      message: fault.message,
      type: fault.type,
      code: fault.code,
      resetsInSeconds: fault.resets_in_seconds,
      resetsAt: fault.resets_at,
      retryAfter: fault.retry_after,
    },
    times,
  };
}

function failed(code: string | undefined, message: string | undefined): Fault {
  return { kind: "failed", code, message };
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
