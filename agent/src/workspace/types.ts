import type { DependencyWork, JsonObject, TaskWork } from "@whilly/core";
import type { IntegrateOptions, IntegrationStepFailure } from "./integrate.js";
import type { LeftoversResult } from "./leftovers.js";

/** The task fields a workspace needs. */
export type WorkspaceTask = { readonly id: string; readonly description: string };

/** A task's worktree, ready for the agent. */
export type PreparedWorkspace = {
  /** The worktree's directory, `<repo>/.whilly/worktrees/<plan-slug>/<task-slug>`. */
  readonly dir: string;
  /** The task's branch, `whilly-tasks/<plan-slug>/<task-slug>`. */
  readonly branch: string;
  /** The commit the worktree started from, its dependencies' work merged in. */
  readonly base: string;
  /** True when the worktree a previous attempt left was kept, with its work and agent session. */
  readonly reused: boolean;
};

/** Where a task's work is kept: its worktree and branch. */
export type KeptWorkspace = { readonly dir: string; readonly branch: string };

/** What {@link TaskWorkspaces.commitLeftovers} did, and where the task's work now is. */
export type CommittedWork = LeftoversResult & {
  /** The task's branch and its commit (the worktree's HEAD): what a DONE attempt reports. */
  readonly work: TaskWork;
};

/** Options of {@link TaskWorkspaces.prepare}. */
export type PrepareOptions = {
  /** Keep the worktree a previous attempt left, when it still exists and holds `dependencyWork`. */
  readonly reuse: boolean;
  /** The claim's dependency work, merged in order into a fresh worktree where the base takes it. */
  readonly dependencyWork?: readonly DependencyWork[] | undefined;
  /** Stops a fetch of that work (the worker is stopping): it fails at once. */
  readonly signal?: AbortSignal | undefined;
};

/**
 * Where a fresh worktree starts: `commit`, with `merges` merged into it in order. Local `whilly run`
 * starts from the integration branch (which holds every DONE dependency's work); a remote worker from
 * its clone's start commit with the dependencies' commits.
 */
export type WorktreeStart = { readonly commit: string; readonly merges: readonly DependencyWork[] };

/**
 * How a fresh worktree's base is made (see {@link WorktreeStart}).
 * @throws WorkspaceUnavailable when a dependency's commit cannot be had on this machine.
 */
export type WorktreeBase = (
  task: WorkspaceTask,
  dependencyWork: readonly DependencyWork[],
  signal?: AbortSignal | undefined,
) => Promise<WorktreeStart>;

/** How delivering checked work went: the detail fields it adds, or why the work did not go in. */
export type Delivered =
  | { readonly ok: true; readonly detail: JsonObject }
  | { readonly ok: false; readonly reason: "merge_conflict"; readonly files: readonly string[] }
  | ({ readonly ok: false; readonly reason: "integration_failed" } & IntegrationStepFailure);

/** How a DONE task's work leaves its worktree: merged into the integration branch, pushed, or kept. */
export type Delivery = {
  /** The attempt's phase while delivering (`merge`, `push`); `undefined` when there is nothing to do. */
  readonly phase: string | undefined;
  /**
   * Delivers `work`; `options` run the plan's checks on an integration tree, where there is one.
   * @throws WorkspaceUnavailable when the machine could not deliver (a push refused or unanswered).
   */
  deliver(task: WorkspaceTask, work: TaskWork, options: IntegrateOptions): Promise<Delivered>;
};

/**
 * The worktrees of one plan's tasks in one clone, as the attempt pipeline uses them. Local `whilly run`
 * and a remote worker share the worktree handling and differ in {@link WorktreeBase} and
 * {@link Delivery}. Every method may throw ConfigurationError when git fails.
 */
export type TaskWorkspaces = {
  /** The repository's top directory. */
  readonly repoDir: string;
  readonly delivery: Delivery;
  /**
   * A worktree for `task`: the one a previous attempt left when `reuse` allows, it still exists and
   * holds every dependency's commit; else a fresh one on the task's branch (reset) from the base.
   * @throws WorkspaceUnavailable when a dependency's work cannot be had, or the task's branch is checked
   *   out in another tree of the clone (the machine's fault).
   * @throws DependencyConflict when dependencies' work conflicts; no worktree is left half-merged.
   */
  prepare(task: WorkspaceTask, options: PrepareOptions): Promise<PreparedWorkspace>;
  /** Records what the setup command made in `dir`, so {@link TaskWorkspaces.commitLeftovers} leaves it out. */
  recordSetup(dir: string): Promise<readonly string[]>;
  /**
   * Commits what the agent left in `dir` (setup's unchanged files and files over the size limit left
   * out). The task's branch is moved to the worktree's HEAD, should the agent have switched branches.
   */
  commitLeftovers(dir: string, task: WorkspaceTask): Promise<CommittedWork>;
  /** Removes the task's worktree (DONE); its branch is kept. */
  remove(task: WorkspaceTask): Promise<void>;
  /** Where a task's worktree and branch are (kept for a FAILED task, to be printed). */
  keptPaths(task: WorkspaceTask): KeptWorkspace;
};
