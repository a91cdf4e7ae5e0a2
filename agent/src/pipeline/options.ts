import type { RunAgent } from "../worker/types.js";
import type { TaskWorkspaces } from "../workspace/types.js";

/** Options of `createTaskAttempt`. */
export type TaskAttemptOptions = {
  /**
   * The plan's worktrees: each task runs in its own (`openWorkspaces` for local `whilly run`, merging
   * DONE work into the integration branch; `openCloneWorkspaces` for a remote worker, pushing it).
   * `undefined` runs every task in place in `cwd` (a directory outside git): no worktree, no commit, no
   * merge; the checks still run.
   */
  readonly workspaces: TaskWorkspaces | undefined;
  /** The directory tasks run in when `workspaces` is `undefined`. */
  readonly cwd?: string | undefined;
  /** Runs the agent CLI once in a directory (e.g. `createClaudeAgent`). */
  readonly runAgent: RunAgent;
  /** The setup command run in each new worktree (`--setup`); overrides the plan's `setup`. */
  readonly setup?: string | undefined;
  /** The verify commands (`--verify`); override the plan's `verify`. */
  readonly verify?: readonly string[] | undefined;
  /** Each check's and the setup command's limit, ms (`--verify-timeout`, default 10 min). */
  readonly verifyTimeoutMs: number;
  /** Time between SIGTERM and SIGKILL when a check runs out of time, ms. */
  readonly killGraceMs: number;
  /** The agent's environment, for the setup command and the checks (whilly's credentials are dropped). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The runner's state directory, where running checks are recorded (`<stateDir>/attempts/`). */
  readonly stateDir?: string | undefined;
  /** This worker's id: a retry reuses the kept worktree and resumes the session only where they were made. */
  readonly workerId: string;
  /**
   * Other workers whose worktrees are on this machine (the other slots of `whilly run -j N`): a retry
   * after one of their attempts reuses the kept worktree and session too.
   */
  readonly localWorkerIds?: readonly string[] | undefined;
  /** Secrets to hide from output tails besides those `env` holds (whilly's own). */
  readonly secrets?: readonly string[] | undefined;
};
