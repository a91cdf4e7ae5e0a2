import { detectCycles, formatCycle } from "../dag/index.js";
import { PlanInvalid } from "../errors.js";
import type { JsonObject, PlanSpec, TaskSpec } from "../model.js";
import { type MicroUsd, parseUsd } from "../money.js";
import { readAgentFields, readFallbackAgents } from "./agent-fields.js";
import { type SplitInstructions, splitInstructions } from "./instructions.js";
import { formatPath, IssueList, type TaskScope } from "./issues.js";
import { findDuplicateKeys } from "./json-duplicates.js";
import { findJsonSyntaxError } from "./json-syntax.js";
import { isPlainObject, scanJson, toJson } from "./json-values.js";
import { planIssueRef, readGithubIssueRef, readOrigin } from "./origin.js";
import { type ParsedTask, parseTask } from "./parse-task.js";
import { readMaxAttempts, readSetup, readVerify } from "./run-fields.js";
import { idProblem, show } from "./text.js";

/** The top-level fields whilly knows; every other top-level key is kept in `PlanSpec.extra`. */
export const PLAN_FIELDS = [
  "plan_id",
  "project",
  "tasks",
  "agent_instructions",
  "verify",
  "setup",
  "max_attempts",
  "agent",
  "model",
  "fallback_agents",
  "github_issue_ref",
  "origin",
] as const;

const KNOWN = new Set<string>(PLAN_FIELDS);
const NO_INSTRUCTIONS: SplitInstructions = { lines: {}, kept: {} };

/**
 * Parses a plan file's text (the `tasks.json` format of docs/plan-format.md). A leading byte
 * order mark is ignored.
 * @param source names the file in messages (its path, or e.g. `<stdin>`).
 * @throws {PlanInvalid} listing every problem: invalid JSON (with line and column); else every key
 *   repeated within one object (`JSON.parse` would keep only the last value, silently), then everything
 *   {@link parsePlanObject} reports.
 */
export function parsePlanFile(text: string, source: string): PlanSpec {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const found = findJsonSyntaxError(body);
    const message = found
      ? `invalid JSON at line ${found.line}, column ${found.column}: ${found.message}`
      : `invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
    throw new PlanInvalid(source, [{ path: "", message }]);
  }
  const issues = new IssueList();
  for (const { path, line, column } of findDuplicateKeys(body)) {
    issues.plan(
      path,
      `${formatPath(path)}: duplicate key (line ${line}, column ${column}); JSON keeps only the last value, so remove or rename one of them`,
    );
  }
  return readPlan(value, source, undefined, issues);
}

/**
 * Validates and normalises a parsed plan (docs/plan-format.md, "What whilly rejects"): `project` a
 * non-empty string, `tasks` an array, `plan_id` defaulting to `project`; every task per
 * {@link parseTask}; task ids unique; every dependency in the plan; no dependency cycles; only text
 * Postgres can store; ids within limits. Unknown top-level and task fields are kept in `extra`;
 * `agent_instructions` (an object of any keys) becomes `agentInstructions` (its lists of strings, a
 * string as a one-line list) and `keptInstructions` (every other value, which
 * `instructionWarnings` names). `verify` (a command or a list), `setup` (a command) and `max_attempts`
 * (1 to `MAX_MAX_ATTEMPTS`, a numeric string accepted) become `verify`, `setup` and `maxAttempts`, left
 * out when absent; so are `agent`, `model` and `fallback_agents` (see `readAgentFields`). `github_issue_ref` (`owner/repo/N`, made canonical) and `origin` (see `readOrigin`)
 * become `githubIssueRef` and `origin`; a `github_issue` origin gives the plan its issue reference. Statuses are
 * kept as given (the store decides what an imported `CLAIMED` means).
 * @param planIdOverride replaces the payload's `plan_id` (for generated plans); checked like one.
 * @throws {PlanInvalid} with one issue per problem, each naming the field and the task.
 */
export function parsePlanObject(value: unknown, source: string, planIdOverride?: string): PlanSpec {
  return readPlan(value, source, planIdOverride, new IssueList());
}

/** {@link parsePlanObject}, adding to `issues` (which may already hold problems found in the text). */
function readPlan(
  value: unknown,
  source: string,
  planIdOverride: string | undefined,
  issues: IssueList,
): PlanSpec {
  if (!isPlainObject(value)) {
    issues.plan([], `the plan must be a JSON object at the top level; got ${show(value)}`);
    throw new PlanInvalid(source, issues.items);
  }

  scanJson({ ...value, tasks: undefined }, [], (path, message) => issues.plan(path, message));
  const name = readProject(value.project, issues);
  const id = readPlanId(value, name, planIdOverride, issues);
  const agentInstructions = readInstructions(value.agent_instructions, issues);
  const reserveMicroUsd = readReserve(value.reserve_usd, issues);
  const report = (path: readonly (string | number)[], message: string) => issues.plan(path, message);
  const verify = readVerify(value.verify, report);
  const setup = readSetup(value.setup, report);
  const maxAttempts = readMaxAttempts(value.max_attempts, "plan", report);
  const { fields: choice } = readAgentFields(value, "plan", report);
  const fallbackAgents = readFallbackAgents(value.fallback_agents, report);
  const origin = readOrigin(value.origin, report);
  const issueRef = planIssueRef(
    readGithubIssueRef(value.github_issue_ref, report) ?? undefined,
    origin ?? undefined,
    report,
  );
  const parsed = readTasks(value.tasks, issues);
  if (parsed) checkGraph(parsed, issues);

  if (issues.items.length > 0) throw new PlanInvalid(source, issues.items);
  const extra: JsonObject = Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !KNOWN.has(key) && item !== undefined)
      .map(([key, item]) => [key, toJson(item)]),
  );
  const tasks = (parsed ?? [])
    .map((task) => task.spec)
    .filter((spec): spec is TaskSpec => spec !== undefined);
  return {
    id: id ?? "",
    name: name ?? "",
    tasks,
    agentInstructions: (agentInstructions ?? NO_INSTRUCTIONS).lines,
    keptInstructions: (agentInstructions ?? NO_INSTRUCTIONS).kept,
    ...(reserveMicroUsd === undefined ? {} : { reserveMicroUsd }),
    ...(verify ? { verify } : {}),
    ...(setup ? { setup } : {}),
    ...(maxAttempts ? { maxAttempts } : {}),
    ...choice,
    ...(fallbackAgents ? { fallbackAgents } : {}),
    ...(issueRef === undefined ? {} : { githubIssueRef: issueRef }),
    ...(origin ? { origin } : {}),
    extra,
  };
}

/**
 * `reserve_usd`: what a claim reserves per attempt while the plan has a budget (docs/claim.md), an
 * amount by the one rule of `parseUsd`; kept in `extra` too, so export writes it back.
 */
function readReserve(value: unknown, issues: IssueList): MicroUsd | undefined {
  if (value === undefined || value === null) return undefined;
  const micro = typeof value === "number" || typeof value === "string" ? parseUsd(value) : undefined;
  if (micro === undefined) {
    issues.plan(
      ["reserve_usd"],
      `'reserve_usd' must be an amount of USD from 0 to 99999999.999999, e.g. 0.25 or "0.25"; got ${show(value)}`,
    );
  }
  return micro;
}

function readProject(value: unknown, issues: IssueList): string | undefined {
  if (value === undefined) {
    issues.plan(["project"], "missing required plan field 'project'");
    return undefined;
  }
  if (typeof value !== "string" || value.trim() === "") {
    issues.plan(["project"], `'project' must be a non-empty string; got ${show(value)}`);
    return undefined;
  }
  return value;
}

function readPlanId(
  plan: Record<string, unknown>,
  name: string | undefined,
  override: string | undefined,
  issues: IssueList,
): string | undefined {
  if (override !== undefined) {
    return checkedPlanId(override, issues, ["plan_id"], "the plan id given in place of 'plan_id'");
  }
  if (plan.plan_id === undefined) {
    if (name === undefined) return undefined;
    return checkedPlanId(name, issues, ["project"], "'project' (the plan id, as there is no 'plan_id')");
  }
  return checkedPlanId(plan.plan_id, issues, ["plan_id"], "'plan_id'");
}

function checkedPlanId(
  value: unknown,
  issues: IssueList,
  path: string[],
  subject: string,
): string | undefined {
  if (typeof value !== "string" || value === "") {
    issues.plan(path, `${subject} must be a non-empty string; got ${show(value)}`);
    return undefined;
  }
  const problem = idProblem(value);
  if (!problem) return value;
  const hint = path[0] === "project" ? "; add a shorter 'plan_id'" : "";
  issues.plan(path, `${subject} ${problem}${hint}`);
  return undefined;
}

/** Any key is accepted; values that are not lists of strings are kept (see {@link splitInstructions}). */
function readInstructions(value: unknown, issues: IssueList): SplitInstructions | undefined {
  if (value === undefined) return NO_INSTRUCTIONS;
  if (isPlainObject(value)) return splitInstructions(value);
  issues.plan(
    ["agent_instructions"],
    `'agent_instructions' must be an object mapping names to lists of strings, e.g. {"before": ["Read the README first."]}; got ${show(value)}`,
  );
  return undefined;
}

function readTasks(value: unknown, issues: IssueList): ParsedTask[] | undefined {
  if (value === undefined) {
    issues.plan(["tasks"], "missing required plan field 'tasks'");
    return undefined;
  }
  if (!Array.isArray(value)) {
    issues.plan(["tasks"], `'tasks' must be a JSON array; got ${show(value)}`);
    return undefined;
  }
  return value.map((raw, index) => parseTask(raw, index, issues));
}

/** Duplicate ids, dependencies outside the plan, and cycles, over every task with a usable id. */
function checkGraph(parsed: readonly ParsedTask[], issues: IssueList): void {
  const first = new Map<string, TaskScope>();
  for (const { scope } of parsed) {
    if (scope.id === undefined) continue;
    const earlier = first.get(scope.id);
    if (earlier) issues.task(scope, ["id"], `duplicate task id; tasks[${earlier.index}] has the same id`);
    else first.set(scope.id, scope);
  }
  const graph: { id: string; dependencies: readonly string[] }[] = [];
  for (const { scope, dependencies } of parsed) {
    if (scope.id === undefined || dependencies === undefined || first.get(scope.id) !== scope) continue;
    graph.push({ id: scope.id, dependencies });
    dependencies.forEach((dep, index) => {
      // A dependency listed twice is reported as a repeat already; its absence is said once.
      if (first.has(dep) || dependencies.indexOf(dep) !== index) return;
      issues.raw(
        scope,
        ["dependencies", index],
        `task ${show(scope.id)} depends on ${show(dep)}, which is not in the plan`,
      );
    });
  }
  for (const cycle of detectCycles(graph)) {
    const start = cycle[0] ?? "";
    const scope = first.get(start) ?? { index: 0, id: start };
    issues.raw(scope, ["dependencies"], `Cycle detected: ${formatCycle(cycle)}`);
  }
}
