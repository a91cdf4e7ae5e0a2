import { gitBranchNameProblem, outputTail, type TaskWork } from "@whilly/core";
import type { IntegrationTarget } from "./target.js";

/** True when the clone holds `commit` (as a commit object). */
export async function hasCommit(target: IntegrationTarget, commit: string): Promise<boolean> {
  const found = await target.git.run(target.top, ["cat-file", "-e", `${commit}^{commit}`]);
  return found.code === 0;
}

/**
 * How getting a task's commit went: `fetched` says whether the remote was asked; `missing` whether the
 * branch could not be fetched, or came without the commit.
 */
export type FetchResult =
  | { readonly ok: true; readonly fetched: boolean }
  | {
      readonly ok: false;
      readonly missing: "branch" | "commit";
      readonly message: string;
      readonly output_tail: string;
    };

/**
 * Makes the task's commit present in the clone: kept as is when it already is, else fetched with its
 * branch from the remote (`git fetch <remote> refs/heads/<branch>`), which must then hold it; a branch
 * pushed again since (a re-run of the task) may no longer. A recorded branch git would not take as a
 * name is refused unfetched.
 */
export async function fetchWork(target: IntegrationTarget, work: TaskWork): Promise<FetchResult> {
  if (await hasCommit(target, work.commit)) return { ok: true, fetched: false };
  // Recorded by a worker: a name with `:` or a glob would make the fetch write refs of this clone.
  const problem = gitBranchNameProblem(work.branch);
  if (problem !== undefined) {
    return {
      ok: false,
      missing: "branch",
      message: `the recorded branch ${JSON.stringify(work.branch)} is not a git branch name (it ${problem})`,
      output_tail: "the task's record is damaged: reset the task (whilly plan reset) and run it again",
    };
  }
  const { git, top, remote } = target;
  const fetch = await git.run(top, ["fetch", "-q", "--no-tags", remote, `refs/heads/${work.branch}`]);
  if (fetch.code !== 0) {
    return {
      ok: false,
      missing: "branch",
      message: `could not fetch ${work.branch} from ${remote} (git fetch exit ${fetch.code})`,
      output_tail: outputTail(fetch.stderr.trim()),
    };
  }
  if (await hasCommit(target, work.commit)) return { ok: true, fetched: true };
  return {
    ok: false,
    missing: "commit",
    message: `${remote}'s ${work.branch} does not hold the recorded commit ${work.commit.slice(0, 12)}`,
    output_tail: "the branch was pushed again since the task was DONE, or the commit was never pushed",
  };
}
