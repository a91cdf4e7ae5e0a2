import type { IntegrationReport } from "./integrate-plan.js";

/** The JSON of `plan integrate --json` (snake_case, as every whilly JSON). */
export function reportJson(report: IntegrationReport) {
  const stop = report.stop;
  return {
    plan_id: report.planId,
    branch: report.branch,
    status: stop === undefined ? "integrated" : "stopped",
    created: report.created,
    tip: report.tip || null,
    remote: report.remote,
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

/** The text of `plan integrate`: what went in, what was in already, what is not DONE, and any stop. */
export function reportText(report: IntegrationReport): string {
  const lines: string[] = [];
  const tip = report.tip ? ` at ${report.tip.slice(0, 12)}` : "";
  lines.push(`plan ${report.planId} → ${report.branch}${report.created ? " (created from HEAD)" : ""}${tip}`);
  const list = (items: readonly string[]) => (items.length === 0 ? "none" : items.join(", "));
  lines.push(
    `  merged:      ${list(report.merged.map((m) => m.taskId + (m.fetched ? ` (fetched from ${report.remote})` : "")))}`,
  );
  lines.push(`  already in:  ${list(report.alreadyIn.map((m) => m.taskId))}`);
  if (report.notMerged.length > 0) lines.push(`  not merged:  ${list(report.notMerged)}`);
  if (report.notDone.length > 0)
    lines.push(`  not DONE, not integrated: ${list(report.notDone.map((t) => `${t.id} (${t.status})`))}`);
  const stop = report.stop;
  if (stop === undefined) {
    lines.push(
      report.pushed ? `pushed ${report.branch} to ${report.remote}` : `integrated: ${report.branch}`,
    );
    return `${lines.join("\n")}\n`;
  }
  lines.push(`stopped: ${stop.message}`);
  if (stop.files !== undefined && stop.files.length > 0) {
    lines.push(`  files: ${stop.files.join(", ")}`);
  }
  if (stop.outputTail) {
    lines.push("  output (last lines):");
    for (const line of stop.outputTail.split("\n").slice(-20)) lines.push(`    ${line}`);
  }
  if (report.worktree !== undefined) lines.push(`  worktree: ${report.worktree}`);
  lines.push("next:");
  for (const step of stop.next) lines.push(`  - ${step}`);
  return `${lines.join("\n")}\n`;
}
