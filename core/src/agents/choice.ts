import { z } from "zod";

/**
 * An agent's name as plans, flags and workers write it: a lowercase letter, then up to 63 lowercase
 * letters, digits, `-` or `_` (`claude`, `codex`, `gemini`, `cmd`, `my-agent`).
 */
export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** A worker tag (`gpu`, `macos`, `arm64`): the same shape as an agent name. */
export const TAG_NAME = AGENT_NAME;

/** The agent a task runs on when nothing names one. */
export const DEFAULT_AGENT = "claude";

/** A model name as passed to an agent CLI: 1 to 200 characters, no whitespace or control characters. */
export const MODEL_NAME = /^[^\s\p{Cc}]{1,200}$/u;

export const agentNameSchema = z
  .string()
  .regex(AGENT_NAME, "an agent name: lowercase letters, digits, - or _");
export const tagNameSchema = z.string().regex(TAG_NAME, "a tag: lowercase letters, digits, - or _");
export const modelNameSchema = z
  .string()
  .regex(MODEL_NAME, "a model name without spaces, 1 to 200 characters");

/** One level's say on the agent and model: a task, its plan, a run's flags or its `--force-*` flags. */
export type AgentLevel = {
  readonly agent?: string | null | undefined;
  readonly model?: string | null | undefined;
};

/** The levels {@link chooseAgent} reads, strongest first. */
export type AgentLevels = {
  /** `--force-agent` / `--force-model`: win over everything. */
  readonly force?: AgentLevel | undefined;
  /** A fallback agent the control plane chose after a usage limit (its model is the agent's default). */
  readonly fallback?: string | null | undefined;
  readonly task?: AgentLevel | undefined;
  readonly plan?: AgentLevel | undefined;
  /** `--agent` / `--model` of `whilly run` or `whilly-worker`. */
  readonly run?: AgentLevel | undefined;
};

/** What one attempt runs: the agent's name and, when some level named one for it, the model. */
export type AgentChoice = {
  readonly agent: string;
  /** `undefined`: the agent's own default (e.g. `WHILLY_MODEL` for Claude, `WHILLY_CODEX_MODEL` for Codex). */
  readonly model: string | undefined;
};

/**
 * Chooses the agent and model of an attempt (docs/agents.md#choosing). The agent is the first named
 * of force, fallback, task, plan, run, else {@link DEFAULT_AGENT}. A model belongs to its agent: a
 * level's model is used only when the agent that level resolves to (its own, else the first named
 * below it) is the chosen one, so a plan's Claude model never reaches a task sent to Codex. A forced
 * model applies whatever the agent.
 */
export function chooseAgent(levels: AgentLevels): AgentChoice {
  const order: (AgentLevel | undefined)[] = [
    levels.force,
    levels.fallback ? { agent: levels.fallback } : undefined,
    levels.task,
    levels.plan,
    levels.run,
  ];
  const agentFrom = (start: number): string | undefined => {
    for (let i = start; i < order.length; i += 1) {
      const agent = order[i]?.agent;
      if (agent) return agent;
    }
    return undefined;
  };
  const agent = agentFrom(0) ?? DEFAULT_AGENT;
  const forced = levels.force?.model;
  if (forced) return { agent, model: forced };
  for (let i = 1; i < order.length; i += 1) {
    const model = order[i]?.model;
    if (model && (agentFrom(i) ?? DEFAULT_AGENT) === agent) return { agent, model };
  }
  return { agent, model: undefined };
}
