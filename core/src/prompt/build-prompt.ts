import { COMPLETION_MARKER } from "../agent-result/marker.js";
import type { AttemptFailure } from "../attempts/index.js";
import type { AgentInstructions, PlanSpec, TaskSpec } from "../model.js";
import { PLACED_INSTRUCTION_KEYS } from "../plan/instructions.js";
import { attemptLine, failureSection, type PromptAttempt } from "./feedback.js";

export { COMPLETION_MARKER };

/** The task fields a prompt uses: a {@link TaskSpec}, a stored task, or a claim's payload mapped to them. */
export type PromptTask = Pick<
  TaskSpec,
  | "id"
  | "priority"
  | "prdRequirement"
  | "description"
  | "dependencies"
  | "acceptanceCriteria"
  | "testSteps"
  | "keyFiles"
>;

/** The plan context of a prompt; a worker that knows only the plan id passes it as the name too. */
export type PromptPlan = Pick<PlanSpec, "id" | "name"> & { readonly agentInstructions: AgentInstructions };

/**
 * Builds the prompt an agent gets for one task (in English; docs/plan-format.md). In order: the plan's
 * `agent_instructions.before_start` and `before` lines; the plan; `Task id: <id>` on a line of its own
 * (tools find the task by that line); priority and PRD requirement; the description; dependencies,
 * stated as DONE; the `during_work` lines; numbered acceptance criteria and test steps; key files;
 * every other instruction key, sorted, under a heading of its name; the rules, including when to print
 * {@link COMPLETION_MARKER}; and the `before_finish` and `after` lines. It names no host paths. Pure.
 * With `attempt`, the header has `Attempt: N of M` after the task id; with `previousFailure`, a section
 * after the header says what went wrong in the previous attempt (see `failureSection`).
 */
export function buildPrompt(input: {
  plan: PromptPlan;
  task: PromptTask;
  attempt?: PromptAttempt | undefined;
  previousFailure?: AttemptFailure | undefined;
}): string {
  const { plan, task } = input;
  const given = plan.agentInstructions;
  const sections: string[][] = [];
  const place = (key: string) => {
    const lines = Object.hasOwn(given, key) ? given[key] : undefined;
    if (lines !== undefined && lines.length > 0) sections.push([...lines]);
  };
  place("before_start");
  place("before");

  const planLine = plan.name === plan.id ? `Plan: ${plan.id}` : `Plan: ${plan.name} (plan id: ${plan.id})`;
  const header = [
    "You are a coding agent working on one task of a larger plan.",
    planLine,
    `Task id: ${task.id}`,
    ...(input.attempt === undefined ? [] : [attemptLine(input.attempt)]),
    `Priority: ${task.priority}`,
  ];
  if (task.prdRequirement.trim() !== "") header.push(`PRD requirement: ${task.prdRequirement}`);
  sections.push(header);
  if (input.previousFailure !== undefined) sections.push(failureSection(input.previousFailure));

  const description = task.description.trim() === "" ? "(no description given)" : task.description;
  sections.push(["## Description", description]);
  if (task.dependencies.length > 0) {
    sections.push([
      "## Dependencies",
      "These tasks are already DONE; build on their results and do not redo them:",
      ...bullets(task.dependencies),
    ]);
  }
  place("during_work");
  sections.push(["## Acceptance criteria", ...numbered(task.acceptanceCriteria)]);
  sections.push(["## Test steps", "Run each step and make sure it passes:", ...numbered(task.testSteps)]);
  if (task.keyFiles.length > 0) sections.push(["## Key files", ...bullets(task.keyFiles)]);
  for (const key of otherKeys(given)) sections.push([`## ${key}`, ...(given[key] ?? [])]);
  sections.push(rules(task.id));
  place("before_finish");
  place("after");
  return sections.map((lines) => lines.join("\n")).join("\n\n");
}

/** The instruction keys without a fixed place that have lines, in code-unit order (locale-free). */
function otherKeys(given: AgentInstructions): string[] {
  const placed: readonly string[] = PLACED_INSTRUCTION_KEYS;
  return Object.keys(given)
    .filter((key) => !placed.includes(key) && (given[key]?.length ?? 0) > 0)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function rules(taskId: string): string[] {
  return [
    "## Rules",
    `- Work only on task ${taskId}; do not start other tasks of the plan.`,
    "- Meet every acceptance criterion and run every test step; fix whatever fails.",
    "- When every criterion is met and every test step passes, end your final reply with this line,",
    "  alone, as its very last line:",
    COMPLETION_MARKER,
    "- Otherwise describe what is wrong or unfinished, and do not print that line anywhere.",
  ];
}

function numbered(items: readonly string[]): string[] {
  if (items.length === 0) return ["(none given)"];
  return items.map((item, index) => `${index + 1}. ${indentContinuation(item)}`);
}

function bullets(items: readonly string[]): string[] {
  return items.map((item) => `- ${indentContinuation(item)}`);
}

/** Keeps a multi-line item visually inside its list entry. */
function indentContinuation(item: string): string {
  return item.replace(/\r?\n/g, "\n   ");
}
