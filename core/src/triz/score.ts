import { TRIZ_SEVERITIES, type TrizFinding, type TrizSeverity, type TrizVerdict } from "./types.js";

/** What each severity takes off the ideality score, in half points (critical 4, high 2, medium 1, low 0.5). */
const HALF_POINTS: Record<TrizSeverity, number> = { critical: 8, high: 4, medium: 2, low: 1 };

/** `reject` on any critical finding, `revise` on any high or medium one, else `approve`. */
export function trizVerdict(findings: readonly TrizFinding[]): TrizVerdict {
  if (findings.some((f) => f.severity === "critical")) return "reject";
  if (findings.some((f) => f.severity === "high" || f.severity === "medium")) return "revise";
  return "approve";
}

/**
 * The ideality score: 1 − Σ weights / max(1, 3 × taskCount), weights critical 4, high 2, medium 1,
 * low 0.5, clamped to [0, 1] and rounded to two decimals (half up). Computed in integers, so the same
 * findings always give the same number.
 */
export function idealityScore(taskCount: number, findings: readonly TrizFinding[]): number {
  const penalty = findings.reduce((sum, f) => sum + HALF_POINTS[f.severity], 0);
  const whole = 2 * Math.max(1, 3 * taskCount);
  if (penalty >= whole) return 0;
  return Math.floor((200 * (whole - penalty) + whole) / (2 * whole)) / 100;
}

/** Counts per severity, most serious first, e.g. `1 critical, 2 medium`; empty when there are none. */
export function severityCounts(findings: readonly TrizFinding[]): string {
  return TRIZ_SEVERITIES.map(
    (severity) => [severity, findings.filter((f) => f.severity === severity).length] as const,
  )
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`)
    .join(", ");
}

/** One sentence for the report's `summary`: the verdict's reason and the finding counts. */
export function trizSummary(verdict: TrizVerdict, findings: readonly TrizFinding[]): string {
  if (findings.length === 0) return "No structural problems found.";
  const counts = severityCounts(findings);
  if (verdict === "reject") return `Blocking contradictions (${counts}): fix the plan before running it.`;
  if (verdict === "revise") return `Runnable, but worth tightening (${counts}).`;
  return `Only low-risk improvements (${counts}).`;
}
