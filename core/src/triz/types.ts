import type { TaskSpec } from "../model.js";

/** How much a finding weighs, most serious first. */
export const TRIZ_SEVERITIES = ["critical", "high", "medium", "low"] as const;

/** One of {@link TRIZ_SEVERITIES}. */
export type TrizSeverity = (typeof TRIZ_SEVERITIES)[number];

/** The preflight's rules, in the order it runs them and lists their findings. */
export const TRIZ_CATEGORIES = [
  "weak_task_definition",
  "dependency_contradiction",
  "missing_dependency_resource",
  "duplicate_work",
  "resource_conflict",
  "over_engineering_risk",
] as const;

/** One of {@link TRIZ_CATEGORIES}. */
export type TrizCategory = (typeof TRIZ_CATEGORIES)[number];

/**
 * The numbers of the TRIZ inventive principles the findings point to, with their usual names:
 * 2 taking out, 5 merging, 10 preliminary action, 13 the other way round.
 */
export const TRIZ_PRINCIPLES = {
  2: "taking out",
  5: "merging",
  10: "preliminary action",
  13: "the other way round",
} as const;

/** A key of {@link TRIZ_PRINCIPLES}. */
export type TrizPrinciple = keyof typeof TRIZ_PRINCIPLES;

/** The preflight's answer: `reject` on any critical finding, `revise` on a high or medium one, else `approve`. */
export type TrizVerdict = "reject" | "revise" | "approve";

/** One problem the preflight found. `taskIds` in the order the rule met them (a cycle's walk order). */
export type TrizFinding = {
  readonly severity: TrizSeverity;
  readonly category: TrizCategory;
  readonly taskIds: readonly string[];
  /** One line saying what is wrong, naming the fields, ids or files involved. */
  readonly title: string;
  /** What to change in the plan. */
  readonly recommendation: string;
  readonly trizPrinciple: TrizPrinciple;
};

/** The least the preflight reads of a task: a stored `TaskRecord` or a parsed `TaskSpec` will do. */
export type TrizTask = Pick<
  TaskSpec,
  "id" | "description" | "dependencies" | "keyFiles" | "acceptanceCriteria" | "testSteps"
>;

/** What the preflight analyses: a plan id and every task of the plan. */
export type TrizPlan = { readonly id: string; readonly tasks: readonly TrizTask[] };

/**
 * The preflight's report (docs/triz.md).
 * - `idealityScore`: 0 to 1 with two decimals, 1 for a plan with no findings.
 * - `mergeableGroups`: groups of task ids (each sorted) that do the same work or share key files.
 * - `removableTasks`: in each group of duplicates, every task but the first by id.
 * - `summary`: one sentence with the verdict's reason and the finding counts.
 */
export type TrizReport = {
  readonly planId: string;
  readonly taskCount: number;
  readonly verdict: TrizVerdict;
  readonly idealityScore: number;
  readonly findings: readonly TrizFinding[];
  readonly mergeableGroups: readonly (readonly string[])[];
  readonly removableTasks: readonly string[];
  readonly summary: string;
};
