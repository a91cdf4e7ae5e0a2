import type { AgentAdapter, RunAttempt } from "@whilly/agent";
import type { Integration } from "./summary.js";

/** What runs the attempts of one plan: made once the plan is known (its workspaces need its id). */
export type PlanRunner = {
  /**
   * The attempt runner of one claim slot, which claims as `workerId`; `slotIds` are every slot's ids
   * (this one's included), whose kept worktrees are all on this machine.
   */
  runAttempt(workerId: string, slotIds: readonly string[]): RunAttempt;
  /** Where a FAILED task's kept worktree is, when it has one. */
  keptPath?(taskId: string): string | undefined;
  /** After the last attempt: takes the plan's work to the user's branch, or says the command that does. */
  finish?(): Promise<Integration | undefined>;
  /**
   * What the run's claims carry: the agents found working and `--tags` (a usage limit on one of several
   * agents pauses it alone), and `--agent`/`--model`/`--force-*`. Claims as Claude Code alone when undefined.
   */
  agents?: RunAgents | undefined;
};

/** The agents of a run, for its claims. */
export type RunAgents = {
  readonly working: readonly string[];
  readonly tags: readonly string[];
  readonly choice: { agent?: string; model?: string; force_agent?: string; force_model?: string };
  /** The configured adapters, so the failure analysis asks the agent that failed the task. */
  readonly adapters: readonly AgentAdapter[];
};
