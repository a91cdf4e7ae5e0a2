import type { TaskWork } from "@whilly/core";
import { abandonStep, gitStop, type Stop, type StopContext } from "./stops.js";

/**
 * A task's commit could not be got from the remote: its branch is not there (most often its worker ran
 * without `--push`, so the work stayed in the worker's clone) or no longer holds the commit.
 */
export function fetchStop(
  at: StopContext,
  taskId: string,
  work: TaskWork,
  failed: { readonly missing: "branch" | "commit"; readonly message: string; readonly output_tail: string },
): Stop {
  const push = `git push ${at.remote} ${work.commit}:refs/heads/${work.branch}`;
  const cause =
    failed.missing === "branch"
      ? `the usual cause: the worker of task ${taskId} ran without --push, so its work stayed in the worker's clone: run workers with whilly-worker --push, or push it from that clone: ${push}`
      : `${work.branch} on ${at.remote} was pushed over since task ${taskId} was DONE: push the recorded commit back from the clone that has it (git push ${at.remote} +${work.commit}:refs/heads/${work.branch}), or reset the task and run it again`;
  return gitStop("fetch_failed", taskId, failed.message, failed.output_tail, [
    cause,
    `check that ${work.branch} is on ${at.remote} and holds ${work.commit.slice(0, 12)}: git -C ${at.top} ls-remote ${at.remote} ${work.branch}`,
    `then run again: ${at.rerun}`,
  ]);
}

/** The remote could not be asked for the integration branch, which `--push` needs. */
export function remoteStop(at: StopContext, message: string, outputTail: string): Stop {
  return gitStop("fetch_failed", undefined, message, outputTail, [
    `check that ${at.remote} is reachable from here: git -C ${at.top} ls-remote ${at.remote} ${at.branch}`,
    `then run again: ${at.rerun}`,
  ]);
}

/**
 * The remote's branch holds commits the integration branch does not (integrated and pushed from another
 * clone): a push would be refused, so the user merges it in the worktree first.
 */
export function divergedStop(at: StopContext, ref: string, onlyThere: number): Stop {
  const commits = `${onlyThere} commit${onlyThere === 1 ? "" : "s"}`;
  return gitStop(
    "branch_diverged",
    undefined,
    `${at.branch} has diverged from ${ref}: ${ref} has ${commits} ${at.branch} does not (pushed from another clone), so the push would be refused`,
    "",
    [
      `merge it into ${at.branch} in the worktree: git -C ${at.dir} merge --no-edit ${ref} (on a conflict: resolve, then git -C ${at.dir} add -A && git -C ${at.dir} commit --no-edit)`,
      `then run again (verify runs on the merged tip, then the rest is merged and pushed): ${at.rerun}`,
      abandonStep(at, `or start again from ${ref}: abandon this integration`),
    ],
  );
}

/** git refused the push: everything is merged locally. */
export function pushStop(at: StopContext, exitCode: number, outputTail: string): Stop {
  return gitStop(
    "push_failed",
    undefined,
    `git push of ${at.branch} to ${at.remote} failed (exit ${exitCode}); everything is merged locally`,
    outputTail,
    [
      `push it yourself once the cause is fixed: git -C ${at.top} push ${at.remote} ${at.branch}`,
      `if git says the push was rejected (${at.remote}'s ${at.branch} moved on meanwhile), run again: ${at.rerun} (it fetches ${at.remote}/${at.branch} and says how to merge it)`,
    ],
  );
}

/** git refused to start a merge (an untracked file in the way, say): nothing is in progress. */
export function mergeFailedStop(at: StopContext, taskId: string, exitCode: number, outputTail: string): Stop {
  const message = `git merge of task ${taskId} failed (exit ${exitCode}) before merging anything`;
  return gitStop("merge_failed", taskId, message, outputTail, [
    `fix what git says in ${at.dir}, then run again: ${at.rerun}`,
    abandonStep(at),
  ]);
}
