import {
  TRIZ_PRINCIPLES,
  TRIZ_SEVERITIES,
  type TrizReport,
  type TrizSeverity,
  type TrizVerdict,
} from "./types.js";

/** Colours a verdict or a severity heading; the CLI passes one that honours `NO_COLOR` and TTYs. */
export type TrizColor = (tone: TrizVerdict | TrizSeverity, text: string) => string;

/**
 * The human form of a {@link TrizReport}: a title, the verdict and ideality score, the summary, the
 * findings grouped by severity (most serious first), each with its category, task ids, TRIZ
 * principle, title and recommendation, then the mergeable groups and removable tasks. Ends with a
 * newline. Pure.
 */
export function renderTrizReport(report: TrizReport, color: TrizColor = (_, text) => text): string {
  const tasks = `${report.taskCount} task${report.taskCount === 1 ? "" : "s"}`;
  const lines = [
    `TRIZ preflight of plan '${report.planId}' (${tasks})`,
    `verdict: ${color(report.verdict, report.verdict.toUpperCase())}   ideality: ${report.idealityScore.toFixed(2)}`,
    report.summary,
  ];
  for (const severity of TRIZ_SEVERITIES) {
    const findings = report.findings.filter((f) => f.severity === severity);
    if (findings.length === 0) continue;
    lines.push("", color(severity, `${severity.toUpperCase()} (${findings.length})`));
    for (const f of findings) {
      const principle = `principle ${f.trizPrinciple} (${TRIZ_PRINCIPLES[f.trizPrinciple]})`;
      const ids = f.taskIds.length === 1 ? "task" : "tasks";
      lines.push(`  ${f.category} · ${ids} ${f.taskIds.join(", ")} · ${principle}`);
      lines.push(`    ${f.title}`);
      lines.push(`    recommendation: ${f.recommendation}`);
    }
  }
  if (report.mergeableGroups.length > 0 || report.removableTasks.length > 0) lines.push("");
  if (report.mergeableGroups.length > 0) {
    lines.push(`mergeable groups: ${report.mergeableGroups.map((ids) => ids.join(" + ")).join("; ")}`);
  }
  if (report.removableTasks.length > 0) lines.push(`removable tasks: ${report.removableTasks.join(", ")}`);
  return `${lines.join("\n")}\n`;
}
