import { dependencyFindings } from "./dependencies.js";
import { overEngineeringFindings } from "./over-engineering.js";
import { duplicateFindings, findOverlaps, sharedFileFindings } from "./overlaps.js";
import { idealityScore, trizSummary, trizVerdict } from "./score.js";
import type { TrizPlan, TrizReport } from "./types.js";
import { weakDefinitionFindings } from "./weak-definition.js";

/**
 * The TRIZ preflight of a plan (docs/triz.md): a deterministic look at its structure for weak task
 * definitions, dependency cycles and missing dependencies, duplicate work, tasks sharing key files and
 * over-engineering, with no model call. Findings come in rule order ({@link TRIZ_CATEGORIES}), each
 * rule's in plan order. Pure; never throws.
 */
export function analyzePlanTriz(plan: TrizPlan): TrizReport {
  const overlaps = findOverlaps(plan.tasks);
  const findings = [
    ...weakDefinitionFindings(plan.tasks),
    ...dependencyFindings(plan.tasks),
    ...duplicateFindings(overlaps),
    ...sharedFileFindings(overlaps),
    ...overEngineeringFindings(plan.tasks),
  ];
  const mergeable = new Map<string, readonly string[]>();
  for (const ids of [...overlaps.duplicates, ...overlaps.sharedFiles.map((group) => group.taskIds)]) {
    mergeable.set(JSON.stringify(ids), ids);
  }
  const verdict = trizVerdict(findings);
  return {
    planId: plan.id,
    taskCount: plan.tasks.length,
    verdict,
    idealityScore: idealityScore(plan.tasks.length, findings),
    findings,
    mergeableGroups: [...mergeable.values()],
    removableTasks: overlaps.duplicates.flatMap((ids) => ids.slice(1)),
    summary: trizSummary(verdict, findings),
  };
}
