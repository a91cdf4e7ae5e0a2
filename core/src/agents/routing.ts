import type { WorkerCapabilities } from "../model.js";
import { DEFAULT_AGENT } from "./choice.js";

/** What a worker that sends no capabilities (an older one) can run: Claude Code, no tags. */
export const DEFAULT_CAPABILITIES: WorkerCapabilities = { agents: [DEFAULT_AGENT], tags: [] };

/**
 * What a ready task waits for when no online worker can run it (docs/agents.md#routing): the agent
 * none of them has, and the required tags none of them has. When every piece is on some worker but no
 * one worker has them all, the task's whole requirement: its agent (when the task, its fallback or its
 * plan names one) and every required tag.
 */
export type WaitingFor = {
  readonly agent?: string | undefined;
  readonly tags: readonly string[];
};

/** A ready `PENDING` task that no online worker can run, and what it waits for. */
export type WaitingTask = { readonly taskId: string; readonly waitingFor: WaitingFor };

/** `agent codex and tags gpu, macos`: a {@link WaitingFor} in words ("a worker with ..."). */
export function describeWaitingFor(waiting: WaitingFor): string {
  const parts: string[] = [];
  if (waiting.agent !== undefined) parts.push(`agent ${waiting.agent}`);
  if (waiting.tags.length > 0)
    parts.push(`${waiting.tags.length === 1 ? "tag" : "tags"} ${waiting.tags.join(", ")}`);
  return parts.length === 0 ? "a worker that can run it" : `a worker with ${parts.join(" and ")}`;
}

/**
 * What the pieces {@link WaitingFor} names are, from a task's requirement and the capabilities of the
 * workers that could take it: the agent when no set would run the task on an agent it has, the tags
 * no set has; the whole
 * requirement when each piece is somewhere but never all in one set. `agent` is the agent the task
 * resolves to without a worker's own choice (`undefined` when only a worker's `--agent` would name one:
 * then the default agent is what is missing when no set has it).
 */
export function missingPieces(
  requirement: { readonly agent?: string | undefined; readonly tags: readonly string[] },
  sets: readonly WorkerCapabilities[],
): WaitingFor {
  const agent = requirement.agent ?? DEFAULT_AGENT;
  // Each worker runs the task on its forced agent, else the task's, else its own default.
  const agentMissing = !sets.some((set) =>
    set.agents.includes(set.forceAgent ?? requirement.agent ?? set.agent ?? DEFAULT_AGENT),
  );
  const tags = requirement.tags.filter((tag) => !sets.some((set) => set.tags.includes(tag)));
  if (agentMissing || tags.length > 0) return { ...(agentMissing ? { agent } : {}), tags };
  return { ...(requirement.agent === undefined ? {} : { agent }), tags: [...requirement.tags] };
}

/**
 * A worker's own say on the agent and model (its `--agent`, `--model`, `--force-agent`,
 * `--force-model`), as a claim carries it for `chooseAgent`.
 */
export type RunChoice = {
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
  readonly forceAgent?: string | undefined;
  readonly forceModel?: string | undefined;
};
