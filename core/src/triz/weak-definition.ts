import { evaluateGate } from "../gate.js";
import type { TrizFinding, TrizTask } from "./types.js";

/**
 * `weak_task_definition`: one finding per task the decision gate rejects. `high` when the gate names
 * the description (blank or too short: whilly 4.x counted both as a missing description), else
 * `medium`; principle 10, preliminary action: specify the task before an agent runs it.
 */
export function weakDefinitionFindings(tasks: readonly TrizTask[]): TrizFinding[] {
  const findings: TrizFinding[] = [];
  for (const task of tasks) {
    const verdict = evaluateGate(task);
    if (verdict.kind === "ALLOW") continue;
    const description = verdict.missing.includes("description") || verdict.tooShort.includes("description");
    findings.push({
      severity: description ? "high" : "medium",
      category: "weak_task_definition",
      taskIds: [task.id],
      title: `task fails the decision gate: ${gateProblems(verdict.missing, verdict.tooShort)}`,
      recommendation:
        "give the task a concrete description (at least 20 characters), acceptance criteria and test steps before an agent runs it",
      trizPrinciple: 10,
    });
  }
  return findings;
}

function gateProblems(missing: readonly string[], tooShort: readonly string[]): string {
  const parts = tooShort.map((field) => `${field} too short`);
  if (missing.length > 0) parts.push(`missing ${missing.join(", ")}`);
  return parts.join("; ");
}
