import type { TaskSpec } from "./model.js";

/** A description shorter than this, after trimming, is too thin to act on (docs/cli.md#plans). */
export const MIN_DESCRIPTION_LENGTH = 20;

/** What the decision gate checks, in the fixed order it reports them. */
export const GATE_CHECKS = ["description", "acceptance_criteria", "test_steps"] as const;

/** One of {@link GATE_CHECKS}; the labels are the plan file's field names. */
export type GateCheck = (typeof GATE_CHECKS)[number];

/**
 * The gate's answer. `ALLOW` has no labels and no reason. `REJECT` lists, in {@link GATE_CHECKS} order,
 * the fields that are absent or empty (`missing`, whilly 4.x's contract: its warning line and the
 * `task.skipped` detail carry it) and those present but under their minimum (`tooShort`: a description
 * with text but fewer than {@link MIN_DESCRIPTION_LENGTH} characters), and a reason such as
 * `decision gate refused: description too short (5 characters, at least 20); missing test_steps`.
 */
export type GateVerdict =
  | {
      readonly kind: "ALLOW";
      readonly missing: readonly [];
      readonly tooShort: readonly [];
      readonly reason: undefined;
    }
  | {
      readonly kind: "REJECT";
      readonly missing: readonly GateCheck[];
      readonly tooShort: readonly GateCheck[];
      readonly reason: string;
    };

/**
 * The decision gate (docs/cli.md#plans): is the task specified well enough to hand to an agent? A task
 * needs a description of at least {@link MIN_DESCRIPTION_LENGTH} characters (code points, after
 * trimming), at least one acceptance criterion and at least one test step. Every check runs, so the
 * verdict names everything wrong at once. Pure.
 */
export function evaluateGate(
  task: Pick<TaskSpec, "description" | "acceptanceCriteria" | "testSteps">,
): GateVerdict {
  const missing: GateCheck[] = [];
  const tooShort: GateCheck[] = [];
  const length = [...task.description.trim()].length;
  if (length === 0) missing.push("description");
  else if (length < MIN_DESCRIPTION_LENGTH) tooShort.push("description");
  if (task.acceptanceCriteria.length === 0) missing.push("acceptance_criteria");
  if (task.testSteps.length === 0) missing.push("test_steps");
  if (missing.length === 0 && tooShort.length === 0) {
    return { kind: "ALLOW", missing: [], tooShort: [], reason: undefined };
  }
  const parts: string[] = [];
  if (tooShort.length > 0) {
    parts.push(`description too short (${length} characters, at least ${MIN_DESCRIPTION_LENGTH})`);
  }
  if (missing.length > 0) parts.push(`missing ${missing.join(", ")}`);
  return { kind: "REJECT", missing, tooShort, reason: `decision gate refused: ${parts.join("; ")}` };
}
