import { AGENT_NAME, MODEL_NAME, TAG_NAME } from "../agents/index.js";
import { fieldName } from "./issues.js";
import type { Report } from "./json-values.js";
import { show } from "./text.js";

/** A plan's or a task's `agent` and `model` (docs/agents.md#choosing); absent when not named. */
export type AgentFields = {
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
};

const AGENT_RULE = 'an agent name: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "codex")';
const TAG_RULE = 'a tag: a lowercase letter, then lowercase letters, digits, - or _ (e.g. "gpu")';

/**
 * `agent` and `model` of a plan or a task: an agent name as `AGENT_NAME` takes, and a model name as
 * `MODEL_NAME` takes (no whitespace, 1 to 200 characters). Absent or `null` is left out.
 * @param of whose fields: the messages say what leaving one out means.
 * @returns the fields read, and `ok` false when one was reported as bad.
 */
export function readAgentFields(
  raw: Record<string, unknown>,
  of: "plan" | "task",
  report: Report,
): { fields: AgentFields; ok: boolean } {
  let ok = true;
  const fields: { agent?: string; model?: string } = {};
  const below = of === "task" ? "the plan's, else the worker's --agent" : "the worker's --agent";
  const agent = raw.agent;
  if (agent !== undefined && agent !== null) {
    if (typeof agent === "string" && AGENT_NAME.test(agent)) fields.agent = agent;
    else {
      ok = false;
      report(["agent"], `'agent' must be ${AGENT_RULE}; got ${show(agent)} (leave it out for ${below})`);
    }
  }
  const model = raw.model;
  if (model !== undefined && model !== null) {
    if (typeof model === "string" && MODEL_NAME.test(model)) fields.model = model;
    else {
      ok = false;
      report(
        ["model"],
        `'model' must be a model name of 1 to 200 characters without spaces (e.g. "gpt-5-codex"); got ${show(model)} (leave it out for the agent's default)`,
      );
    }
  }
  return { fields, ok };
}

/**
 * A task's `required_tags`: a list of tags as `TAG_NAME` takes, none repeated. Absent, `null` or `[]`
 * is `undefined` (any worker may run the task).
 * @returns `null` when the value was reported as bad.
 */
export function readRequiredTags(value: unknown, report: Report): readonly string[] | undefined | null {
  return readNames(value, "required_tags", TAG_RULE, TAG_NAME, report, "so that any worker may run the task");
}

/**
 * A plan's `fallback_agents`: agent names as `AGENT_NAME` takes, none repeated, tried in order when a
 * task's agent is refused for a usage limit. Absent, `null` or `[]` is `undefined` (no fallback).
 * @returns `null` when the value was reported as bad.
 */
export function readFallbackAgents(value: unknown, report: Report): readonly string[] | undefined | null {
  return readNames(value, "fallback_agents", AGENT_RULE, AGENT_NAME, report, "for no fallback");
}

function readNames(
  value: unknown,
  field: string,
  rule: string,
  pattern: RegExp,
  report: Report,
  absent: string,
): readonly string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    report(
      [field],
      `'${field}' must be a list, each item ${rule}; got ${show(value)} (leave it out ${absent})`,
    );
    return null;
  }
  let ok = true;
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const path = [field, index];
    if (typeof item !== "string" || !pattern.test(item)) {
      ok = false;
      report(path, `${fieldName(path)} must be ${rule}; got ${show(item)}`);
    } else if (seen.has(item)) {
      ok = false;
      report(path, `'${field}' lists ${show(item)} more than once; remove the repeat`);
    }
    if (typeof item === "string") seen.add(item);
  });
  if (!ok) return null;
  return value.length === 0 ? undefined : (value as string[]).slice();
}
