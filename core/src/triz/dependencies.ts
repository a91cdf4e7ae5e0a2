import { detectCycles, formatCycle } from "../dag/cycles.js";
import type { TrizFinding, TrizTask } from "./types.js";

/**
 * `dependency_contradiction` (critical, principle 2, taking out): one finding per dependency cycle,
 * its task ids in walk order without repeats. `missing_dependency_resource` (high, principle 10,
 * preliminary action): one finding per task naming dependency ids the plan lacks. whilly's own import
 * refuses both, so a stored plan never has them; a plan file checked before import may.
 */
export function dependencyFindings(tasks: readonly TrizTask[]): TrizFinding[] {
  const findings: TrizFinding[] = detectCycles(tasks).map((cycle) => ({
    severity: "critical",
    category: "dependency_contradiction",
    taskIds: [...new Set(cycle)],
    title: `dependency cycle ${formatCycle(cycle)}: no order can run these tasks`,
    recommendation:
      "break the cycle: take the shared prerequisite out into a task of its own, or drop the dependency that is not real",
    trizPrinciple: 2,
  }));
  const ids = new Set(tasks.map((task) => task.id));
  for (const task of tasks) {
    const missing = [...new Set(task.dependencies.filter((dep) => !ids.has(dep)))];
    if (missing.length === 0) continue;
    findings.push({
      severity: "high",
      category: "missing_dependency_resource",
      taskIds: [task.id],
      title: `task depends on ${missing.map((id) => `'${id}'`).join(", ")}, not in the plan`,
      recommendation: "add the missing prerequisite task to the plan, or remove the dependency",
      trizPrinciple: 10,
    });
  }
  return findings;
}
