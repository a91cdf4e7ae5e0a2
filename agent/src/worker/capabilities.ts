import type { AgentName } from "../agents/types.js";
import { createPauseGate, type PauseGate, type PauseGateOptions } from "./pause.js";

/** What a worker advertises with each claim: the agents it can run now and its tags. */
export type Advertised = { readonly agents: AgentName[]; readonly tags: string[] };

/**
 * What a worker can run (docs/agents.md#routing): the agents found working at start, less those a
 * usage limit paused, and its `--tags`. Shared by every claim slot of a process.
 */
export type Capabilities = {
  /** The agents to advertise now (paused ones left out until their reset) and the tags. */
  advertised(): Advertised;
  /**
   * Pauses `agent` alone after a usage limit, until `until` or a doubling backoff (as the worker's own
   * pause, see {@link PauseGate}), when another advertised agent is left to claim for.
   * @returns when `agent` is advertised again; `undefined` when it was the last one left (nothing is
   *   paused: the caller pauses the whole worker instead, as with a single agent).
   */
  pauseAgent(agent: AgentName, until: Date | undefined): Date | undefined;
  /** `agent` ran an attempt without a limit: its next limit's backoff starts from the first again. */
  succeeded(agent: AgentName): void;
};

/** Makes the {@link Capabilities} of a worker with `agents` and `tags`; `backoff*` as the worker's pause gate. */
export function createCapabilities(
  options: { readonly agents: readonly AgentName[]; readonly tags: readonly string[] } & PauseGateOptions,
): Capabilities {
  const gates = new Map<AgentName, PauseGate>();
  const gateOf = (agent: AgentName) => {
    let gate = gates.get(agent);
    if (gate === undefined) {
      gate = createPauseGate(options);
      gates.set(agent, gate);
    }
    return gate;
  };
  const agentsNow = () => options.agents.filter((agent) => gates.get(agent)?.pausedUntil() === undefined);
  return {
    advertised: () => ({ agents: agentsNow(), tags: [...options.tags] }),
    pauseAgent(agent, until) {
      const others = agentsNow().filter((name) => name !== agent);
      if (others.length === 0) return undefined;
      return gateOf(agent).pause(until);
    },
    succeeded(agent) {
      gates.get(agent)?.succeeded();
    },
  };
}
