import type { TrizFinding, TrizTask } from "./types.js";

/**
 * Words that ask for generality rather than a result, matched in lower case anywhere in a
 * description (so `frameworks` and `generically` count); the Russian stems cover plans written in
 * Russian, as whilly 4.x did.
 */
export const OVER_ENGINEERING_WORDS = [
  "abstraction",
  "framework",
  "generic",
  "pluggable",
  "future-proof",
  "scalable",
  "универсаль",
  "фреймворк",
  "абстракц",
] as const;

/**
 * `over_engineering_risk` (low, principle 13, the other way round): a task whose description uses one
 * of {@link OVER_ENGINEERING_WORDS} and has neither acceptance criteria nor test steps, so nothing
 * bounds how general the agent makes it.
 */
export function overEngineeringFindings(tasks: readonly TrizTask[]): TrizFinding[] {
  const findings: TrizFinding[] = [];
  for (const task of tasks) {
    if (task.acceptanceCriteria.length > 0 || task.testSteps.length > 0) continue;
    const description = task.description.toLowerCase();
    const words = OVER_ENGINEERING_WORDS.filter((word) => description.includes(word));
    if (words.length === 0) continue;
    findings.push({
      severity: "low",
      category: "over_engineering_risk",
      taskIds: [task.id],
      title: `task asks for ${words.map((w) => `'${w}'`).join(", ")} with no acceptance criteria or test steps to bound it`,
      recommendation:
        "turn it around: build the narrow behaviour a user needs first, with criteria and a test, and generalise later",
      trizPrinciple: 13,
    });
  }
  return findings;
}
