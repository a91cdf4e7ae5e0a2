import type { TaskStatus } from "@whilly/core";
import type { Stop } from "./stops.js";

/** What one `plan integrate` run did. */
export type IntegrationReport = {
  readonly planId: string;
  readonly branch: string;
  /** `nothing_to_integrate` when no task is DONE: then nothing was made or touched. */
  readonly status: "integrated" | "stopped" | "nothing_to_integrate";
  /** What this run made the branch from (`HEAD`, or the remote's branch); `undefined` when it existed. */
  readonly createdFrom: string | undefined;
  /** The remote's branch the branch was fast-forwarded to, being behind it. */
  readonly fastForwarded: string | undefined;
  readonly remote: string;
  /** The remote's branch (`origin/whilly/p`) and how many of its commits the branch lacks at the end. */
  readonly remoteBranch: { readonly ref: string; readonly onlyThere: number } | undefined;
  /** Tasks merged by this run, in order; `fetched` when the commit came from the remote. */
  readonly merged: readonly { readonly taskId: string; readonly commit: string; readonly fetched: boolean }[];
  /** DONE tasks whose commit the branch already held (an earlier run, or the user). */
  readonly alreadyIn: readonly { readonly taskId: string; readonly commit: string }[];
  /** DONE tasks not in the branch yet because the run stopped: the one it stopped at (unless merged) and later ones. */
  readonly notMerged: readonly string[];
  readonly notDone: readonly { readonly id: string; readonly status: TaskStatus }[];
  /** The branch's tip when the run ended. */
  readonly tip: string;
  readonly pushed: boolean;
  /** The integration worktree, kept when the run stopped (for the user to finish the work there). */
  readonly worktree: string | undefined;
  readonly stop: Stop | undefined;
};

/** The JSON of `plan integrate --json` (snake_case, as every whilly JSON). */
export function reportJson(report: IntegrationReport) {
  const stop = report.stop;
  return {
    plan_id: report.planId,
    branch: report.branch,
    status: report.status,
    created: report.createdFrom !== undefined,
    created_from: report.createdFrom ?? null,
    fast_forwarded_to: report.fastForwarded ?? null,
    tip: report.tip || null,
    remote: report.remote,
    remote_branch: report.remoteBranch
      ? { ref: report.remoteBranch.ref, commits_not_in_branch: report.remoteBranch.onlyThere }
      : null,
    pushed: report.pushed,
    merged: report.merged.map((m) => ({ task_id: m.taskId, commit: m.commit, fetched: m.fetched })),
    already_in: report.alreadyIn.map((m) => ({ task_id: m.taskId, commit: m.commit })),
    not_merged: report.notMerged,
    not_done: report.notDone.map((t) => ({ task_id: t.id, status: t.status })),
    worktree: report.worktree ?? null,
    stopped:
      stop === undefined
        ? null
        : {
            reason: stop.reason,
            task_id: stop.taskId ?? null,
            message: stop.message,
            files: stop.files ?? [],
            step: stop.step ?? null,
            exit_code: stop.exitCode ?? null,
            output_tail: stop.outputTail ?? null,
            next: stop.next,
          },
  };
}

/** The text of `plan integrate`: what went in, what was in already, what is not DONE, and the end. */
export function reportText(report: IntegrationReport): string {
  const tip = report.tip ? ` at ${report.tip.slice(0, 12)}` : "";
  const how = report.createdFrom
    ? ` (created from ${report.createdFrom})`
    : report.fastForwarded
      ? ` (fast-forwarded to ${report.fastForwarded})`
      : "";
  const lines = [`plan ${report.planId} → ${report.branch}${how}${tip}`];
  const list = (items: readonly string[]) => (items.length === 0 ? "none" : items.join(", "));
  if (report.status !== "nothing_to_integrate") {
    const merged = report.merged.map((m) => m.taskId + (m.fetched ? ` (fetched from ${report.remote})` : ""));
    lines.push(
      `  merged:      ${list(merged)}`,
      `  already in:  ${list(report.alreadyIn.map((m) => m.taskId))}`,
    );
  }
  if (report.notMerged.length > 0) lines.push(`  not merged:  ${list(report.notMerged)}`);
  if (report.notDone.length > 0)
    lines.push(`  not DONE, not integrated: ${list(report.notDone.map((t) => `${t.id} (${t.status})`))}`);
  lines.push(...(report.stop ? stopLines(report, report.stop) : endLines(report)));
  return `${lines.join("\n")}\n`;
}

/** The end of a run that did not stop: integrated (and pushed), with a note of the remote's own commits. */
function endLines(report: IntegrationReport): string[] {
  if (report.status === "nothing_to_integrate")
    return [`nothing to integrate: no task of plan '${report.planId}' is DONE`];
  const lines = [`integrated: ${report.branch}`];
  if (report.pushed) lines.push(`pushed ${report.branch} to ${report.remote}`);
  const remote = report.remoteBranch;
  if (remote !== undefined && remote.onlyThere > 0) {
    const them = remote.onlyThere === 1 ? "1 commit" : `${remote.onlyThere} commits`;
    lines.push(
      `note: ${remote.ref} has ${them} ${report.branch} does not (pushed from another clone): merge ${remote.onlyThere === 1 ? "it" : "them"} before you push: git switch ${report.branch} && git merge ${remote.ref}`,
    );
  }
  return lines;
}

/** Where and why the run stopped, git's or the check's last lines, the worktree and the next steps. */
function stopLines(report: IntegrationReport, stop: Stop): string[] {
  const lines = [`stopped: ${stop.message}`];
  if (stop.files !== undefined && stop.files.length > 0) lines.push(`  files: ${stop.files.join(", ")}`);
  if (stop.outputTail) {
    lines.push("  output (last lines):");
    for (const line of stop.outputTail.split("\n").slice(-20)) lines.push(`    ${line}`);
  }
  if (report.worktree !== undefined) lines.push(`  worktree: ${report.worktree}`);
  lines.push("next:", ...stop.next.map((step) => `  - ${step}`));
  return lines;
}
