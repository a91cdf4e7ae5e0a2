import {
  AGENT_NAME,
  type ClaimRouting,
  DEFAULT_AGENT,
  DEFAULT_CAPABILITIES,
  InvalidInput,
  MODEL_NAME,
  type RunChoice,
  TAG_NAME,
  type WorkerCapabilities,
} from "@whilly/core";
import { type SQL, sql } from "drizzle-orm";

/** A claim's routing, checked and in the form the statements bind: sorted, unique name lists. */
export type Routing = {
  readonly capabilities: WorkerCapabilities;
  readonly choice: RunChoice;
};

/**
 * The routing of a claim: capabilities as given, or {@link DEFAULT_CAPABILITIES} for a worker that sent
 * none; names sorted and repeats dropped, so the worker row changes only when what it can run does.
 * @throws {InvalidInput} for a name the plan-file and protocol rules refuse (never from a checked request).
 */
export function routingOf(input: ClaimRouting): Routing {
  const given = input.capabilities ?? DEFAULT_CAPABILITIES;
  const choice = input.choice ?? {};
  const names = (list: readonly string[], rule: RegExp, field: string) => {
    for (const name of list) if (!rule.test(name)) throw new InvalidInput(field, `not a name: ${name}`);
    return [...new Set(list)].sort();
  };
  for (const [field, name, rule] of [
    ["choice.agent", choice.agent, AGENT_NAME],
    ["choice.force_agent", choice.forceAgent, AGENT_NAME],
    ["choice.model", choice.model, MODEL_NAME],
    ["choice.force_model", choice.forceModel, MODEL_NAME],
  ] as const) {
    if (name !== undefined && !rule.test(name)) throw new InvalidInput(field, `not a name: ${name}`);
  }
  return {
    capabilities: {
      agents: names(given.agents, AGENT_NAME, "capabilities.agents"),
      tags: names(given.tags, TAG_NAME, "capabilities.tags"),
    },
    choice,
  };
}

/**
 * A list of names as a `text[]` parameter. The names match `AGENT_NAME` or `TAG_NAME` (checked by
 * {@link routingOf}), so the array literal needs no quoting.
 */
export function textArray(list: readonly string[]): SQL {
  return sql`${`{${list.join(",")}}`}::text[]`;
}

/**
 * The agent task `t` runs on for a worker with `choice`, as `chooseAgent` picks it: the first named of
 * the worker's `--force-agent`, the task's fallback agent, the task's agent, its plan's (`planAgent`),
 * the worker's `--agent`, else the default.
 */
export function effectiveAgent(t: SQL, planAgent: SQL, choice: RunChoice): SQL {
  return sql`COALESCE(${choice.forceAgent ?? null}::text, ${t}.fallback_agent, ${t}.agent, ${planAgent},
    ${choice.agent ?? null}::text, ${DEFAULT_AGENT}::text)`;
}

/**
 * The model of task `t`'s attempt on agent `agent` (an {@link effectiveAgent} expression), as
 * `chooseAgent` picks it: the forced model, else the first model of task, plan and worker whose level
 * resolves to that agent (its own agent, else the first named below it); NULL for the agent's default.
 * A fallback agent names no model.
 */
export function attemptModel(t: SQL, plan: { agent: SQL; model: SQL }, choice: RunChoice, agent: SQL): SQL {
  const run = sql`COALESCE(${choice.agent ?? null}::text, ${DEFAULT_AGENT}::text)`;
  return sql`CASE
    WHEN ${choice.forceModel ?? null}::text IS NOT NULL THEN ${choice.forceModel ?? null}::text
    WHEN ${t}.model IS NOT NULL AND COALESCE(${t}.agent, ${plan.agent}, ${run}) = ${agent} THEN ${t}.model
    WHEN ${plan.model} IS NOT NULL AND COALESCE(${plan.agent}, ${run}) = ${agent} THEN ${plan.model}
    WHEN ${choice.model ?? null}::text IS NOT NULL AND ${run} = ${agent} THEN ${choice.model ?? null}::text
  END`;
}

/**
 * SQL true when a worker with `routing` can run task `t`: its agent among the worker's, its tags too.
 * For a worker without tags the tag test is the literal `required_tags = '{}'`, which the planner
 * matches to the partial index of untagged ready tasks, so such a claim never walks tagged ones.
 */
export function runnable(t: SQL, planAgent: SQL, routing: Routing): SQL {
  const { agents, tags } = routing.capabilities;
  const tagged =
    tags.length === 0
      ? sql`${t}.required_tags = '{}'::text[]`
      : sql`${t}.required_tags <@ ${textArray(tags)}`;
  return sql`${effectiveAgent(t, planAgent, routing.choice)} = ANY(${textArray(agents)}) AND ${tagged}`;
}
