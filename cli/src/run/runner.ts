import { type ClaudeSettings, createClaudeAttempt } from "@whilly/agent";
import type { PlanRecord } from "@whilly/core";
import type { PlanRunner } from "./local-run.js";

/** Options of {@link claudeRunner}. Durations are ms. */
export type ClaudeRunnerOptions = {
  readonly plan: PlanRecord;
  /** The git repository's root: each attempt in a worktree. `undefined` outside git: in place. */
  readonly repoDir: string | undefined;
  /** Where the command runs: the agent's directory in place. */
  readonly cwd: string;
  /** `.whilly/`: running attempts are recorded there. */
  readonly stateDir: string;
  readonly branch?: string | undefined;
  readonly setup?: string | undefined;
  /** Overrides the plan's `verify`. */
  readonly verify?: readonly string[] | undefined;
  readonly claude: ClaudeSettings;
  readonly taskTimeoutMs: number;
  readonly verifyTimeoutMs: number;
  readonly stallTimeoutMs: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: readonly string[];
};

/** Runs each attempt with Claude Code. */
export async function claudeRunner(options: ClaudeRunnerOptions): Promise<PlanRunner> {
  return {
    runAttempt: () =>
      createClaudeAttempt({
        settings: options.claude,
        cwd: options.cwd,
        timeoutMs: options.taskTimeoutMs,
        env: options.env,
        secrets: options.secrets,
        stateDir: options.stateDir,
      }),
  };
}
