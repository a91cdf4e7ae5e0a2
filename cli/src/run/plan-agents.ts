import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The agents a plan file names (the plan's `agent` and `fallback_agents`, each task's `agent`), read
 * leniently: `whilly run` checks at start only the agents its plan can use. `undefined` when the file
 * cannot be read as JSON (every configured agent is checked then; the import reports the file's error).
 * @param file the plan file as given on the command line, taken from `cwd`.
 */
export function agentsNamedIn(file: string, cwd: string): Set<string> | undefined {
  const plan = readPlan(file, cwd);
  if (plan === undefined) return undefined;
  const names = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string") names.add(value.trim());
  };
  add(plan.agent);
  if (Array.isArray(plan.fallback_agents)) plan.fallback_agents.forEach(add);
  if (Array.isArray(plan.tasks)) {
    for (const task of plan.tasks) {
      if (typeof task === "object" && task !== null) add((task as { agent?: unknown }).agent);
    }
  }
  return names;
}

/**
 * False only when the plan file names an agent for every task (its plan's `agent`, else each task's
 * own), so that no task runs on the run's default agent (`--agent`, else Claude Code): then that
 * default need not be installed. True when the file cannot be read as such a plan.
 */
export function leavesAgentToRun(file: string, cwd: string): boolean {
  const plan = readPlan(file, cwd);
  if (plan === undefined || !Array.isArray(plan.tasks)) return true;
  if (named(plan.agent)) return false;
  return plan.tasks.some(
    (task) => typeof task !== "object" || task === null || !named((task as { agent?: unknown }).agent),
  );
}

type PlanFields = { agent?: unknown; fallback_agents?: unknown; tasks?: unknown };

function named(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}

function readPlan(file: string, cwd: string): PlanFields | undefined {
  let plan: unknown;
  try {
    plan = JSON.parse(readFileSync(resolve(cwd, file), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof plan !== "object" || plan === null || Array.isArray(plan)) return undefined;
  return plan as PlanFields;
}
