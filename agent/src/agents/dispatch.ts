import { type AgentChoice, chooseAgent, type TaskPayload, WhillyError } from "@whilly/core";
import type { AgentAttempt, RunAgent } from "../worker/types.js";
import type { AgentRegistry } from "./registry.js";
import { createAdapterAgent, type TaskAgentOptions } from "./task-agent.js";

/** A run's say on agent and model: `--agent`/`--model`, and `--force-agent`/`--force-model` over everything. */
export type AgentDefaults = {
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
  readonly forceAgent?: string | undefined;
  readonly forceModel?: string | undefined;
};

/**
 * The agent and model of `task`'s attempt. A claim reply names both, resolved by the control plane
 * (`task.agent`, `task.model`; `null` model: the agent's default); the same rule ({@link chooseAgent})
 * is applied here too, which gives the same answer for a resolved claim and the worker's own choice
 * for an older control plane that sends neither (`--agent`, else `claude`, and its model).
 */
export function taskAgentChoice(task: TaskPayload, defaults: AgentDefaults): AgentChoice {
  return chooseAgent({
    force: { agent: defaults.forceAgent, model: defaults.forceModel },
    task: { agent: task.agent, model: task.model },
    run: { agent: defaults.agent, model: defaults.model },
  });
}

/**
 * The worker's {@link RunAgent} over several agents: each task runs on the agent and model
 * {@link taskAgentChoice} picks, through that agent's adapter in `registry` (the model, when none is
 * named, is the adapter's default). A session resumes only on the agent that made it. The attempt's
 * `detail` names its `agent` and `model`. A task whose agent has no adapter here comes back as an agent
 * that cannot run on this machine (`agent_unavailable`), never as a thrown error.
 */
export function createAgentDispatch(
  options: TaskAgentOptions & { readonly registry: AgentRegistry; readonly defaults: AgentDefaults },
): RunAgent {
  return async (input) => {
    const choice = taskAgentChoice(input.task, options.defaults);
    let adapter: ReturnType<AgentRegistry["get"]>;
    try {
      adapter = options.registry.get(choice.agent, `task ${input.task.id}'s agent`);
    } catch (error) {
      if (!(error instanceof WhillyError)) throw error;
      return notHere(choice, error);
    }
    const pick = { adapter, model: choice.model ?? adapter.defaultModel };
    return createAdapterAgent(options, () => pick)(input);
  };
}

/** An attempt on an agent this worker has no adapter for: nothing ran, the task goes back. */
function notHere(choice: AgentChoice, error: WhillyError): AgentAttempt {
  const message = `the agent cannot run on this machine: ${error.message}`;
  const hint = error.hint ?? "";
  return {
    ok: false,
    reason: "agent_unavailable",
    costMicroUsd: 0,
    aborted: false,
    detail: {
      ok: false,
      reason: "agent_unavailable",
      message,
      agent: choice.agent,
      model: choice.model ?? null,
    },
    unavailable: { message, hint },
  };
}

/** The worker's `--agent`/`--model`/`--force-*` as a claim carries them (only those given). */
export function claimChoice(defaults: AgentDefaults): {
  agent?: string;
  model?: string;
  force_agent?: string;
  force_model?: string;
} {
  return {
    ...(defaults.agent === undefined ? {} : { agent: defaults.agent }),
    ...(defaults.model === undefined ? {} : { model: defaults.model }),
    ...(defaults.forceAgent === undefined ? {} : { force_agent: defaults.forceAgent }),
    ...(defaults.forceModel === undefined ? {} : { force_model: defaults.forceModel }),
  };
}
