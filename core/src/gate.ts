import type { TaskSpec } from "./model.js";

/** A description shorter than this, after trimming, is too thin to act on (spec section 8). */
export const MIN_DESCRIPTION_LENGTH = 20;

/** What the decision gate can find missing, in the fixed order it reports them. */
export const GATE_CHECKS = ["description", "acceptance_criteria", "test_steps"] as const;

/** One of {@link GATE_CHECKS}; the labels are the plan file's field names. */
export type GateCheck = (typeof GATE_CHECKS)[number];

/**
 * The gate's answer. `ALLOW` has no `missing` labels and no reason; `REJECT` lists every failed check
 * in {@link GATE_CHECKS} order and a reason such as `decision gate refused: missing description, test_steps`.
 */
export type GateVerdict =
  | { readonly kind: "ALLOW"; readonly missing: readonly []; readonly reason: undefined }
  | { readonly kind: "REJECT"; readonly missing: readonly GateCheck[]; readonly reason: string };

/**
 * The decision gate (spec section 8): is the task specified well enough to hand to an agent? A task
 * needs a description of at least {@link MIN_DESCRIPTION_LENGTH} characters (code points, after
 * trimming), at least one acceptance criterion and at least one test step. Every check runs, so the
 * verdict names everything missing at once. Pure.
 */
export function evaluateGate(
  task: Pick<TaskSpec, "description" | "acceptanceCriteria" | "testSteps">,
): GateVerdict {
  const missing: GateCheck[] = [];
  if ([...task.description.trim()].length < MIN_DESCRIPTION_LENGTH) missing.push("description");
  if (task.acceptanceCriteria.length === 0) missing.push("acceptance_criteria");
  if (task.testSteps.length === 0) missing.push("test_steps");
  if (missing.length === 0) return { kind: "ALLOW", missing: [], reason: undefined };
  return { kind: "REJECT", missing, reason: `decision gate refused: missing ${missing.join(", ")}` };
}
