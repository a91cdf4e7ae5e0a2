import {
  ConfigurationError,
  type DependencyWork,
  gitBranchNameProblem,
  redactSecrets,
  type TaskWork,
  urlPasswords,
} from "@whilly/core";
import { WorkspaceUnavailable } from "./faults.js";
import { type GitResult, type GitRunner, gitRunner } from "./git.js";
import { commitArgs, excludeWhillyDir, gitTopLevel, startCommit } from "./repo.js";
import { taskWorkspaces } from "./task-trees.js";
import type { Delivery, TaskWorkspaces, WorkspaceTask } from "./types.js";

/** How long one fetch or push may take before it counts as a machine fault, ms (5 minutes). */
export const DEFAULT_NETWORK_TIMEOUT_MS = 5 * 60_000;

/** Options of {@link openCloneWorkspaces}. */
export type CloneWorkspacesOptions = {
  /** A directory inside the worker's clone (`--workdir`). */
  readonly repoDir: string;
  readonly planId: string;
  /** The remote dependencies are fetched from and DONE work pushed to (`--remote`, default `origin`). */
  readonly remote: string;
  /** Push a DONE task's branch to `remote` (`--push`); else the work stays in this clone. */
  readonly push: boolean;
  /** git's environment: the worker's, credentials included (the agent never gets them). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Values hidden in the messages of git's failures, besides the remote URL's password. */
  readonly secrets?: readonly string[] | undefined;
  /** The largest file a task's commit takes, bytes. Default 50 MiB. */
  readonly maxFileBytes?: number | undefined;
  /** The longest one fetch or push may take, ms; default {@link DEFAULT_NETWORK_TIMEOUT_MS}. */
  readonly networkTimeoutMs?: number | undefined;
};

/** A remote worker's task worktrees; see {@link openCloneWorkspaces}. */
export type CloneWorkspaces = TaskWorkspaces & {
  /** The commit HEAD was at when the worker started: every fresh worktree's start. */
  readonly startCommit: string;
  /** The secrets the remote's URL holds (its password), to be hidden in the agent's output too. */
  readonly remoteSecrets: readonly string[];
  /** False when the clone has no remote of that name: dependencies' work must then be in the clone. */
  readonly hasRemote: boolean;
};

/**
 * Opens a remote worker's worktrees in its clone (docs/worker.md#branch-flow): no integration branch; a
 * fresh worktree starts from the clone's HEAD commit now, with the claim's dependency commits merged in
 * order (fetched from `remote` by their branch when this clone lacks them). DONE work is pushed as
 * `+<commit>:refs/heads/<task branch>` with `push` (forced: a task run again replaces its old work), or
 * stays in the clone. A fetch or push that fails is a {@link WorkspaceUnavailable}.
 * @throws ConfigurationError when `repoDir` is not in a git repository, the repository has no commit,
 *   or `push` is asked for and the clone has no remote named `remote`.
 */
export async function openCloneWorkspaces(options: CloneWorkspacesOptions): Promise<CloneWorkspaces> {
  const git = gitRunner(options.env, { hooks: false });
  const top = await gitTopLevel(git, options.repoDir);
  if (top === undefined) {
    throw new ConfigurationError(`--workdir ${options.repoDir} is not inside a git repository`, {
      hint: "pass a clone of the project as --workdir for a worktree per task",
    });
  }
  const start = await startCommit(git, top);
  const { remote } = options;
  const url = await git.run(top, ["remote", "get-url", remote]);
  const remoteUrl = url.code === 0 ? url.stdout.trim() : undefined;
  if (remoteUrl === undefined && options.push) {
    throw new ConfigurationError(`--push: the clone at ${top} has no remote '${remote}'`, {
      hint: `add it (git -C ${top} remote add ${remote} URL), or name another with --remote`,
    });
  }
  await excludeWhillyDir(git, top);
  const remoteSecrets = remoteUrl === undefined ? [] : urlPasswords(remoteUrl);
  const secrets = [...(options.secrets ?? []), ...remoteSecrets];
  const net: Network = {
    git,
    top,
    remote,
    hasRemote: remoteUrl !== undefined,
    timeoutMs: options.networkTimeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
    redact: (text) => redactSecrets(text, secrets),
  };
  const base = async (
    _task: WorkspaceTask,
    dependencyWork: readonly DependencyWork[],
    signal?: AbortSignal,
  ) => {
    const merges: DependencyWork[] = [];
    for (const dependency of dependencyWork) merges.push(await dependencyCommit(net, dependency, signal));
    return { commit: start, merges };
  };
  const delivery: Delivery = options.push
    ? { phase: "push", deliver: async (_task, work, { signal }) => pushWork(net, work, signal) }
    : { phase: undefined, deliver: async () => ({ ok: true, detail: {} }) };
  const commit = await commitArgs(git, top);
  const trees = taskWorkspaces(
    { git, top, planId: options.planId, commitArgs: commit, maxFileBytes: options.maxFileBytes },
    base,
    delivery,
  );
  return { ...trees, startCommit: start, remoteSecrets, hasRemote: net.hasRemote };
}

/** What fetching and pushing need. */
type Network = {
  readonly git: GitRunner;
  readonly top: string;
  readonly remote: string;
  readonly hasRemote: boolean;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
};

const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The dependency's commit, in this clone: used when present, else fetched from the remote by its branch.
 * @throws WorkspaceUnavailable when it cannot be fetched, or the branch no longer holds it.
 */
async function dependencyCommit(
  net: Network,
  dependency: DependencyWork,
  signal: AbortSignal | undefined,
): Promise<DependencyWork> {
  const { git, top, remote } = net;
  const { taskId, branch, commit } = dependency;
  if (!COMMIT_ID.test(commit) || gitBranchNameProblem(branch) !== undefined) {
    throw new WorkspaceUnavailable(
      `the claim names work of dependency ${taskId} that is no git branch and commit (${JSON.stringify(branch)} ${JSON.stringify(commit)})`,
      { hint: "the control plane's record of the dependency's work is damaged; reset the dependency" },
    );
  }
  if (await hasCommit(git, top, commit)) return dependency;
  if (!net.hasRemote) {
    throw new WorkspaceUnavailable(
      `the work of dependency ${taskId} (commit ${commit.slice(0, 12)}) is not in this clone, which has no remote '${remote}' to fetch ${branch} from`,
      {
        hint: `add the remote the workers push to (git -C ${top} remote add ${remote} URL), or pass --remote`,
      },
    );
  }
  const args = ["fetch", "-q", "--no-tags", remote, `refs/heads/${branch}`];
  const fetched = await git.run(top, args, undefined, { timeoutMs: net.timeoutMs, signal });
  if (fetched.code !== 0) {
    throw new WorkspaceUnavailable(
      `cannot fetch ${branch} (the work of dependency ${taskId}) from ${remote}: ${said(net, fetched)}`,
      {
        hint: `check that ${remote} answers from this machine (git -C ${top} fetch ${remote}) and that the worker that ran ${taskId} pushed its branch (whilly-worker --push)`,
      },
    );
  }
  if (await hasCommit(git, top, commit)) return dependency;
  throw new WorkspaceUnavailable(
    `${remote}'s branch ${branch} does not hold commit ${commit.slice(0, 12)}, the work of dependency ${taskId}`,
    { hint: `the branch was pushed over since ${taskId} was DONE; reset ${taskId} to run it again` },
  );
}

/**
 * Pushes the task's commit to its branch on the remote, forced: a task run again after a reset replaces
 * its old work.
 * @throws WorkspaceUnavailable when the remote refuses or does not answer.
 */
async function pushWork(net: Network, work: TaskWork, signal: AbortSignal | undefined) {
  const { git, top, remote } = net;
  const refspec = `+${work.commit}:refs/heads/${work.branch}`;
  const args = ["push", "-q", "--no-verify", remote, refspec];
  const pushed = await git.run(top, args, undefined, { timeoutMs: net.timeoutMs, signal });
  if (pushed.code !== 0) {
    throw new WorkspaceUnavailable(`cannot push ${work.branch} to ${remote}: ${said(net, pushed)}`, {
      hint: `check that ${remote} answers from this machine and takes this worker's pushes (git -C ${top} push --dry-run ${remote} HEAD:refs/heads/${work.branch})`,
    });
  }
  return { ok: true as const, detail: { pushed_to: remote } };
}

async function hasCommit(git: GitRunner, top: string, commit: string): Promise<boolean> {
  return (await git.run(top, ["cat-file", "-e", `${commit}^{commit}`])).code === 0;
}

/** git's first lines of complaint, secrets hidden. */
function said(net: Network, result: GitResult): string {
  const text = result.stderr.trim().split("\n").slice(0, 3).join("; ");
  return net.redact(text === "" ? `exit ${result.code}` : text);
}
