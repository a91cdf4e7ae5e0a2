import type { TrizCategory, TrizReport, TrizSeverity, TrizVerdict } from "./types.js";

/** A finding as `whilly plan triz --json` prints it (whilly 4.x's field names). */
export type TrizFindingJson = {
  severity: TrizSeverity;
  category: TrizCategory;
  task_ids: string[];
  title: string;
  recommendation: string;
  triz_principle: number;
};

/** The report as `whilly plan triz --json` prints it (whilly 4.x's shape and field names). */
export type TrizReportJson = {
  plan_id: string;
  task_count: number;
  verdict: TrizVerdict;
  ideality_score: number;
  findings: TrizFindingJson[];
  mergeable_groups: string[][];
  removable_tasks: string[];
  summary: string;
};

/** The JSON form of a {@link TrizReport}. */
export function trizReportJson(report: TrizReport): TrizReportJson {
  return {
    plan_id: report.planId,
    task_count: report.taskCount,
    verdict: report.verdict,
    ideality_score: report.idealityScore,
    findings: report.findings.map((f) => ({
      severity: f.severity,
      category: f.category,
      task_ids: [...f.taskIds],
      title: f.title,
      recommendation: f.recommendation,
      triz_principle: f.trizPrinciple,
    })),
    mergeable_groups: report.mergeableGroups.map((ids) => [...ids]),
    removable_tasks: [...report.removableTasks],
    summary: report.summary,
  };
}
