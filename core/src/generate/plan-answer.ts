import { PlanInvalid } from "../errors.js";
import { evaluateGate } from "../gate.js";
import type { JsonObject, PlanSpec } from "../model.js";
import { formatPath } from "../plan/issues.js";
import { findDuplicateKeys } from "../plan/json-duplicates.js";
import { isPlainObject } from "../plan/json-values.js";
import { parsePlanFile, parsePlanObject } from "../plan/parse-plan.js";
import { testStepWarnings } from "../plan/test-steps.js";
import { show } from "../plan/text.js";

/** Where a generated plan came from; stored as the plan's top-level `origin`. */
export type GenerationSource = {
  readonly kind: "idea" | "prd" | "github_issue" | "taskmaster";
  /** What names the source: a PRD path, an issue reference `owner/repo/N`. */
  readonly reference: string;
  readonly url?: string | undefined;
  readonly title?: string | undefined;
};

/** What a model's answer made: a plan (and its plan-file object), or the problems that stop it. */
export type PlanAnswer =
  | {
      readonly ok: true;
      readonly plan: PlanSpec;
      /** The plan as a plan file holds it (`whilly plan import` reads the same). */
      readonly document: JsonObject;
      /** Things worth a warning that do not stop the plan (dropped fields, prose test steps). */
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly string[] };

/** The top-level fields taken from a model's answer; the rest is dropped (see {@link readPlanAnswer}). */
const ANSWER_FIELDS = new Set(["project", "tasks"]);

/** Where the answer is named in problems. */
const SOURCE = "the model's answer";

/**
 * Reads a model's answer as a plan: the JSON is taken from a code fence when the answer has one
 * ({@link answerJson}), parsed and validated by the plan parser (`parsePlanObject`: fields, ids,
 * dependencies and the cycle check), and each task put through the decision gate (`evaluateGate`). The
 * plan gets `planId`, `origin` and `fields` from the caller, every task status `pending`, and nothing
 * else from the answer's top level but `project` and `tasks`: `setup`, `verify` or
 * `agent_instructions` would run commands or steer every agent, and the model read untrusted text. Pure.
 * @param options.fields more top-level fields for the plan (`prd_file`, `github_issue_ref`).
 */
export function readPlanAnswer(
  answer: string,
  options: {
    readonly planId: string;
    readonly origin: GenerationSource;
    readonly fields?: JsonObject | undefined;
  },
): PlanAnswer {
  const text = answerJson(answer);
  if (text === "") return { ok: false, problems: ["the answer is empty; it must be the plan's JSON object"] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problems: issuesOf(() => parsePlanFile(text, SOURCE)) };
  }
  const duplicates = findDuplicateKeys(text).map(
    ({ path, line, column }) => `${formatPath(path)}: duplicate key (line ${line}, column ${column})`,
  );
  if (!isPlainObject(value)) {
    return { ok: false, problems: [`the answer must be a JSON object; got ${show(value)}`] };
  }
  const dropped = Object.keys(value).filter((key) => !ANSWER_FIELDS.has(key));
  const document: JsonObject = {
    project: value.project as JsonObject[string],
    plan_id: options.planId,
    ...options.fields,
    origin: originJson(options.origin),
    tasks: Array.isArray(value.tasks) ? value.tasks.map(pendingTask) : (value.tasks as JsonObject[string]),
  };
  let plan: PlanSpec;
  try {
    plan = parsePlanObject(document, SOURCE, options.planId);
  } catch (error) {
    if (!(error instanceof PlanInvalid)) throw error;
    return { ok: false, problems: [...duplicates, ...error.issues.map((issue) => issue.message)] };
  }
  const problems = [...duplicates, ...gateProblems(plan)];
  if (plan.tasks.length === 0) problems.push("'tasks' is empty; the plan needs at least one task");
  if (problems.length > 0) return { ok: false, problems };
  const warnings = [
    ...(dropped.length > 0
      ? [
          `the model's answer had top-level fields whilly does not take from a model, dropped: ${dropped.join(", ")}`,
        ]
      : []),
    ...testStepWarnings(plan.tasks),
  ];
  return { ok: true, plan, document, warnings };
}

/**
 * The JSON of an answer: the content of its code fence when the whole answer is one (```` ```json ````),
 * else of its first fenced block when the answer does not start with `{`, else from its first `{` to
 * its last `}` when it has prose around the object; the trimmed answer otherwise. Pure.
 */
export function answerJson(answer: string): string {
  const text = answer.trim();
  const whole = /^(`{3,})[\w-]*[ \t]*\n([\s\S]*?)\n?\1$/.exec(text);
  if (whole) return (whole[2] ?? "").trim();
  if (text.startsWith("{")) return text;
  const block = /(`{3,})(?:json)?[ \t]*\n([\s\S]*?)\n\1/i.exec(text);
  if (block) return (block[2] ?? "").trim();
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  return first >= 0 && last > first ? text.slice(first, last + 1) : text;
}

/** A markdown answer (a PRD) without a code fence around the whole of it. Pure. */
export function answerMarkdown(answer: string): string {
  const text = answer.trim();
  const whole = /^(`{3,})(?:markdown|md)?[ \t]*\n([\s\S]*?)\n?\1$/i.exec(text);
  return whole ? (whole[2] ?? "").trim() : text;
}

/** The plan-file form of a source: `{kind, reference, url?, title?}`. */
export function originJson(origin: GenerationSource): JsonObject {
  return {
    kind: origin.kind,
    reference: origin.reference,
    ...(origin.url === undefined ? {} : { url: origin.url }),
    ...(origin.title === undefined ? {} : { title: origin.title }),
  };
}

/** A task of the answer with status `pending` and no `version` (a new plan has done no work). */
function pendingTask(task: unknown): JsonObject[string] {
  if (!isPlainObject(task)) return task as JsonObject[string];
  const { version: _version, ...rest } = task;
  return { ...(rest as JsonObject), status: "pending" };
}

/** One problem per task the decision gate refuses, naming the task and what it lacks. */
function gateProblems(plan: PlanSpec): string[] {
  return plan.tasks.flatMap((task, index) => {
    const verdict = evaluateGate(task);
    return verdict.kind === "ALLOW" ? [] : [`task ${show(task.id)} (tasks[${index}]): ${verdict.reason}`];
  });
}

function issuesOf(parse: () => unknown): string[] {
  try {
    parse();
    return ["the answer is not a plan"];
  } catch (error) {
    if (error instanceof PlanInvalid) return error.issues.map((issue) => issue.message);
    throw error;
  }
}
