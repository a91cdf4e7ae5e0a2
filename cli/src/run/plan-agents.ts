import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The agents a plan file names (the plan's `agent` and `fallback_agents`, each task's `agent`), read
 * leniently: `whilly run` checks at start only the agents its plan can use. `undefined` when the file
 * cannot be read as JSON (every configured agent is checked then; the import reports the file's error).
 * @param file the plan file as given on the command line, taken from `cwd`.
 */
export function agentsNamedIn(file: string, cwd: string): Set<string> | undefined {
  let plan: unknown;
  try {
    plan = JSON.parse(readFileSync(resolve(cwd, file), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof plan !== "object" || plan === null || Array.isArray(plan)) return undefined;
  const names = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string") names.add(value.trim());
  };
  const fields = plan as { agent?: unknown; fallback_agents?: unknown; tasks?: unknown };
  add(fields.agent);
  if (Array.isArray(fields.fallback_agents)) fields.fallback_agents.forEach(add);
  if (Array.isArray(fields.tasks)) {
    for (const task of fields.tasks) {
      if (typeof task === "object" && task !== null) add((task as { agent?: unknown }).agent);
    }
  }
  return names;
}
