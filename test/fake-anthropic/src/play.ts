import { DEFAULT_USAGE, makeReply, type Reply } from "./reply.js";
import type { RequestFacts } from "./request.js";
import type { FakeScript, ScriptFault, ScriptToolUse, ScriptTurn, TaskScript } from "./script.js";

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
 * Picks the answer for a request: the scripted turn at the request's turn index, for the task named in its
 * prompt (else the default script). Stateless except for `faultCounts`, which counts faults served per key
 * so that `times` can stop them.
 */
export function planMove(args: {
  readonly script: FakeScript;
  readonly facts: RequestFacts;
  readonly messageId: string;
  readonly faultKey: string;
  readonly faultCounts: Map<string, number>;
}): Move {
  const { script, facts, messageId } = args;
  const scripted =
    facts.taskId !== undefined && script.tasks !== undefined && Object.hasOwn(script.tasks, facts.taskId)
      ? script.tasks[facts.taskId]
      : undefined;
  const name = scripted && facts.taskId !== undefined ? facts.taskId : "default";
  const task = scripted ?? script.default ?? NO_SCRIPT;

  if (facts.kind !== "agent") {
    const text = facts.kind === "warmup" ? "Warm." : (script.side_text ?? "none");
    return { type: "reply", reply: simpleReply(messageId, facts.model, text), delayMs: 0, script: name };
  }
  const turn: ScriptTurn | undefined = task.turns[facts.turn];
  const fault = pendingFault(turn?.fault ?? task.fault, args.faultKey, args.faultCounts);
  if (fault !== undefined) return { type: "fault", fault, script: name };

  const vars = { cwd: facts.cwd ?? ".", task: facts.taskId ?? "", turn: String(facts.turn) };
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

/** The fault to serve now, counting it, or `undefined` when there is none or its `times` are used up. */
function pendingFault(
  fault: ScriptFault | undefined,
  key: string,
  counts: Map<string, number>,
): Fault | undefined {
  if (fault === undefined) return undefined;
  const normal = normalizeFault(fault);
  const served = counts.get(key) ?? 0;
  if (normal.times !== undefined && served >= normal.times) return undefined;
  counts.set(key, served + 1);
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

function normalizeFault(fault: ScriptFault): { fault: Fault; times: number | undefined } {
  if (fault === "malformed" || fault === "hang") return { fault: { kind: fault }, times: undefined };
  const times = fault.times;
  if (fault.kind === "malformed" || fault.kind === "hang") return { fault: { kind: fault.kind }, times };
  const status = fault.status ?? 500;
  const message = fault.message ?? `fake injected HTTP ${status}`;
  const base = { kind: "status" as const, status, message };
  return {
    fault: fault.retry_after === undefined ? base : { ...base, retryAfter: fault.retry_after },
    times,
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
