import { answerJson } from "../generate/plan-answer.js";
import { fenceUntrusted, UNTRUSTED_NOTICE } from "../generate/untrusted.js";
import type { TaskSpec } from "../model.js";

/** The kinds of contradiction the failure analysis asks about (TRIZ's two). */
export type ContradictionType = "technical" | "physical";

/** What the model answered about a failed task, once read. */
export type ContradictionAnswer =
  | { readonly kind: "contradiction"; readonly contradictionType: ContradictionType; readonly reason: string }
  | { readonly kind: "none" }
  /** Not the agreed JSON: `problem` says what was wrong, for the `triz.error` event. */
  | { readonly kind: "malformed"; readonly problem: string };

/** Each fenced field of the task is cut to this many UTF-8 bytes, so the prompt stays one small argument. */
const FIELD_BYTES = 8 * 1024;

/**
 * The question asked about a task whose attempt failed: does its description and acceptance criteria
 * hold a technical or physical contradiction? The task's text goes in fenced as untrusted data
 * (secrets redacted, capped). It opens with `Generate: triz` and the `Task id:` line, as whilly's
 * other tool-less prompts do, so the scripted fake model (docs/fake-model.md) knows what it is asked. Pure.
 * @param secrets values to hide besides the well-known token shapes.
 */
export function buildContradictionPrompt(
  task: Pick<TaskSpec, "id" | "description" | "acceptanceCriteria">,
  secrets: readonly string[] = [],
): string {
  const criteria = task.acceptanceCriteria.map((line) => `- ${line}`).join("\n") || "(none)";
  return [
    "Generate: triz",
    `Task id: ${task.id}`,
    "",
    "You are a TRIZ analyst. An attempt at the task below failed. Decide whether its description and",
    "acceptance criteria hold one blocking contradiction: technical (improving one parameter worsens",
    "another) or physical (something must have a property and its opposite at once).",
    "",
    UNTRUSTED_NOTICE,
    "",
    fenceUntrusted({ kind: "task_description", text: task.description, maxBytes: FIELD_BYTES }, secrets),
    fenceUntrusted({ kind: "acceptance_criteria", text: criteria, maxBytes: FIELD_BYTES }, secrets),
    "",
    "Answer with JSON only, no prose, in exactly this shape:",
    '{"contradictory": true or false, "contradiction_type": "technical" or "physical" or "", "reason": "..."}',
    'When contradictory is false, contradiction_type and reason are "". When true, reason names the',
    "contradiction in one or two sentences.",
  ].join("\n");
}

/**
 * Reads the model's answer to {@link buildContradictionPrompt}: the JSON object (a code fence or prose
 * around it is tolerated) with a boolean `contradictory`; when true, `contradiction_type` must be
 * `technical` or `physical` and `reason` non-empty text. Anything else is `malformed`. Pure.
 */
export function readContradictionAnswer(answer: string): ContradictionAnswer {
  let value: unknown;
  try {
    value = JSON.parse(answerJson(answer));
  } catch {
    return { kind: "malformed", problem: "the answer is not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "malformed", problem: "the answer is not a JSON object" };
  }
  const { contradictory, contradiction_type: type, reason } = value as Record<string, unknown>;
  if (contradictory === false) return { kind: "none" };
  if (contradictory !== true) return { kind: "malformed", problem: "'contradictory' is not true or false" };
  if (type !== "technical" && type !== "physical") {
    return { kind: "malformed", problem: "'contradiction_type' is not 'technical' or 'physical'" };
  }
  if (typeof reason !== "string" || reason.trim() === "") {
    return { kind: "malformed", problem: "'reason' is empty" };
  }
  return { kind: "contradiction", contradictionType: type, reason: reason.trim() };
}
