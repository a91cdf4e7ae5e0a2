import { DEFAULT_CAPABILITIES, type WorkerCapabilities } from "@whilly/core";

/**
 * What `whilly run` can run on this machine (docs/agents.md#routing): the rule its claims and its end
 * condition use. Claude Code and no tags, as a worker that advertises nothing.
 */
export function localCapabilities(): WorkerCapabilities {
  return DEFAULT_CAPABILITIES;
}
