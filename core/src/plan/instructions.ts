import type { AgentInstructions, JsonObject, JsonValue } from "../model.js";
import { fieldName } from "./issues.js";
import { isPlainObject, toJson } from "./json-values.js";
import { show } from "./text.js";

/** The `agent_instructions` keys whose lines have a fixed place in the prompt (docs/plan-format.md). */
export const PLACED_INSTRUCTION_KEYS = [
  "before_start",
  "before",
  "during_work",
  "before_finish",
  "after",
] as const;

/** `agent_instructions` split into what prompts use and what is only kept. */
export type SplitInstructions = {
  /** Every key whose value is a list of strings; a string is a one-line list. */
  readonly lines: AgentInstructions;
  /** Every other key, its value verbatim. */
  readonly kept: JsonObject;
};

/**
 * Splits a plan file's (or a stored) `agent_instructions` object: a list of strings is used as it is,
 * a string becomes a one-line list, and any other value (a number, an object, a list holding
 * non-strings, `null`) is kept verbatim. Never refuses a key, since plans written for other tools carry
 * keys whilly has no use for.
 */
export function splitInstructions(value: Readonly<Record<string, unknown>>): SplitInstructions {
  const lines: [string, string[]][] = [];
  const kept: [string, JsonValue][] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (typeof item === "string") lines.push([key, [item]]);
    else if (Array.isArray(item) && item.every((line) => typeof line === "string"))
      lines.push([key, [...item]]);
    else kept.push([key, toJson(item)]);
  }
  // fromEntries defines own properties, so a "__proto__" key stays data instead of a prototype.
  return { lines: Object.fromEntries(lines), kept: Object.fromEntries(kept) };
}

/**
 * The one JSON object that stores and exports both halves: every key with lines (empty lists left out,
 * as they say nothing) and every kept value. {@link splitInstructions} of the result gives them back,
 * except that a one-line string comes back as a list.
 */
export function joinInstructions(lines: AgentInstructions, kept: JsonObject): JsonObject {
  return Object.fromEntries([
    ...Object.entries(lines)
      .filter(([, list]) => list.length > 0)
      .map(([key, list]): [string, JsonValue] => [key, [...list]]),
    ...Object.entries(kept),
  ]);
}

/** {@link splitInstructions} of a stored JSON value; anything but an object reads as no instructions. */
export function readStoredInstructions(value: JsonValue | undefined): SplitInstructions {
  return isPlainObject(value) ? splitInstructions(value) : { lines: {}, kept: {} };
}

/**
 * One warning per kept `agent_instructions` value, naming its key: the plan imports and exports it,
 * but no prompt shows it.
 */
export function instructionWarnings(kept: JsonObject): string[] {
  return Object.entries(kept).map(
    ([key, item]) =>
      `${fieldName(["agent_instructions", key])} is ${show(item)}, not a list of strings: it is kept in the plan (export writes it back) but left out of agent prompts`,
  );
}
