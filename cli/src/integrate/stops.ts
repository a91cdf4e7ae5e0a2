import type { CheckFailure } from "./checks.js";

/** Why `plan integrate` stopped before every DONE task was merged (or before the push). */
export type StopReason =
  | "merge_conflict"
  | "merge_in_progress"
  | "uncommitted_changes"
  | "other_branch"
  | "merge_failed"
  | "setup_failed"
  | "verify_failed"
  | "no_work"
  | "fetch_failed"
  | "push_failed"
  | "branch_diverged"
  | "interrupted";

/** Where and why a run stopped, and what the user can do next (`next`, one step a line). */
export type Stop = {
  readonly reason: StopReason;
  /** The task the stop is about; `undefined` when it is about the branch as a whole. */
  readonly taskId: string | undefined;
  readonly message: string;
  /** The conflicting (or changed) files, relative to the repository. */
  readonly files?: readonly string[] | undefined;
  readonly step?: string | undefined;
  readonly exitCode?: number | null | undefined;
  readonly outputTail?: string | undefined;
  readonly next: readonly string[];
};

/** What the messages of a stop need to know: the clone, the worktree, the branch, the remote and the rerun. */
export type StopContext = {
  readonly top: string;
  readonly dir: string;
  readonly branch: string;
  readonly remote: string;
  readonly rerun: string;
  /** True when the branch is the plan's, made by integrate: abandoning deletes it. */
  readonly ownBranch: boolean;
};

/**
 * The step that gives up the integration: the worktree removed and, for a branch integrate made, the
 * branch and its verified ref deleted (a run always merges every DONE task, so undoing a merge only
 * repeats it).
 */
export function abandonStep(at: StopContext, what = "or abandon this integration"): string {
  const worktree = `git -C ${at.top} worktree remove --force ${at.dir}`;
  if (!at.ownBranch)
    return `${what}: ${worktree} (${at.branch} is not integrate's own: put it back yourself, git -C ${at.top} reflog show ${at.branch} lists where it was)`;
  const branch = `git -C ${at.top} branch -D ${at.branch} && git -C ${at.top} update-ref -d refs/whilly/verified/${at.branch}`;
  return `${what} (removes the worktree and the branch): ${worktree} && ${branch}`;
}

/** A merge that conflicted, now or in an earlier run, left in progress in the worktree. */
export function conflictStop(
  at: StopContext,
  taskId: string | undefined,
  files: readonly string[],
  now: boolean,
): Stop {
  const whose = taskId === undefined ? "a merge" : `the merge of task ${taskId}`;
  const message = now
    ? `${whose} into ${at.branch} conflicts in ${files.length} file${files.length === 1 ? "" : "s"}`
    : `${whose} is still in progress in ${at.dir}${files.length > 0 ? ` (${files.length} file${files.length === 1 ? "" : "s"} unmerged)` : " (no files left unmerged: commit it)"}`;
  return {
    reason: now ? "merge_conflict" : "merge_in_progress",
    taskId,
    message,
    files,
    next: [
      `resolve the conflicts in ${at.dir}, then: git -C ${at.dir} add -A && git -C ${at.dir} commit --no-edit`,
      `run again to continue: ${at.rerun}`,
      abandonStep(at),
    ],
  };
}

/** The plan's verify failed on the branch; the merge commit stays for the user to fix on top. */
export function verifyStop(at: StopContext, taskId: string | undefined, failure: CheckFailure): Stop {
  const after = taskId === undefined ? `on ${at.branch}'s tip` : `after merging task ${taskId}`;
  return {
    reason: failure.interrupted ? "interrupted" : "verify_failed",
    taskId,
    message: failure.interrupted
      ? `interrupted while checking ${at.branch} ${after}`
      : `the plan's verify failed ${after}: ${failure.step} (${exitText(failure.exit_code)})`,
    step: failure.step,
    exitCode: failure.exit_code,
    outputTail: failure.output_tail,
    next: failure.interrupted
      ? [`run again to check it and go on: ${at.rerun}`, abandonStep(at)]
      : [
          `the merge stays on ${at.branch}: fix it on top in ${at.dir} and commit, then run again (verify runs on your fix first): ${at.rerun}`,
          abandonStep(at),
        ],
  };
}

/** The plan's setup failed in a new integration worktree, which is removed again. */
export function setupStop(at: StopContext, failure: CheckFailure): Stop {
  return {
    reason: failure.interrupted ? "interrupted" : "setup_failed",
    taskId: undefined,
    message: `the plan's setup failed in the integration worktree: ${failure.step} (${exitText(failure.exit_code)})`,
    step: failure.step,
    exitCode: failure.exit_code,
    outputTail: failure.output_tail,
    next: [`fix the setup (or what it needs), then run again: ${at.rerun}`],
  };
}

/** The worktree holds what a run cannot merge onto: uncommitted changes, or another branch. */
export function worktreeStop(
  at: StopContext,
  state: { kind: "dirty"; files: readonly string[] } | { kind: "other_branch"; head: string },
): Stop {
  if (state.kind === "dirty") {
    return {
      reason: "uncommitted_changes",
      taskId: undefined,
      message: `the integration worktree ${at.dir} has uncommitted changes`,
      files: state.files,
      next: [
        `commit them (git -C ${at.dir} commit -am 'fix'), or drop them (git -C ${at.dir} reset --hard)`,
        `then run again: ${at.rerun}`,
        abandonStep(at),
      ],
    };
  }
  return {
    reason: "other_branch",
    taskId: undefined,
    message: `the integration worktree ${at.dir} is on ${state.head}, not ${at.branch}`,
    next: [
      `switch it back (git -C ${at.dir} switch ${at.branch}), or remove it (git -C ${at.top} worktree remove ${at.dir})`,
      `then run again: ${at.rerun}`,
    ],
  };
}

/** A DONE task whose worker reported no branch and commit: there is nothing to merge. */
export function noWorkStop(at: StopContext, taskId: string): Stop {
  return {
    reason: "no_work",
    taskId,
    message: `task ${taskId} is DONE but no branch and commit of its work were recorded (its worker ran without pushing its work, or before workers reported it)`,
    next: [
      "run the task again with a worker that pushes its work (whilly-worker --push), or merge its work by hand",
      `then run again: ${at.rerun}`,
    ],
  };
}

/** Generic stop: a failed git step (fetch, merge, push) with git's words. */
export function gitStop(
  reason: "fetch_failed" | "merge_failed" | "push_failed" | "branch_diverged",
  taskId: string | undefined,
  message: string,
  outputTail: string,
  next: readonly string[],
): Stop {
  return { reason, taskId, message, outputTail, next };
}

function exitText(code: number | null): string {
  return code === null ? "timed out or stopped" : `exit ${code}`;
}
