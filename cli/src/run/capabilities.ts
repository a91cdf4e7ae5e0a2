import { DEFAULT_CAPABILITIES, type WorkerCapabilities } from "@whilly/core";
import type { RunAgents } from "./plan-runner.js";

/**
 * What `whilly run` can run on this machine (docs/agents.md#routing), the rule of its end condition
 * and summary: the agents found working, `--tags`, and `--agent`/`--force-agent`, which decide what
 * tasks naming no agent run on. Without `agents` (a runner that says nothing), Claude Code and no tags,
 * as its claims then advertise.
 */
export function localCapabilities(agents?: RunAgents | undefined): WorkerCapabilities {
  if (agents === undefined) return DEFAULT_CAPABILITIES;
  return {
    agents: [...agents.working],
    tags: [...agents.tags],
    ...(agents.choice.agent === undefined ? {} : { agent: agents.choice.agent }),
    ...(agents.choice.force_agent === undefined ? {} : { forceAgent: agents.choice.force_agent }),
  };
}
