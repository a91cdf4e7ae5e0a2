import { InvalidInput } from "../errors.js";
import { MIN_DESCRIPTION_LENGTH } from "../gate.js";
import { capBytes, fenceUntrusted, UNTRUSTED_NOTICE, type UntrustedPiece, utf8Length } from "./untrusted.js";

/** Which try this is: the first, or the one after whilly quoted the problems of the first. */
export type GenerationTry = { readonly number: number; readonly of: number };

/** A previous answer that did not make a valid plan, and what was wrong with it. */
export type PreviousAnswer = { readonly answer: string; readonly problems: readonly string[] };

/**
 * The most a prompt may take, UTF-8 bytes. The prompt is one argument of the agent's command line,
 * and Linux refuses a longer one than 128 KiB (E2BIG).
 */
export const MAX_PROMPT_BYTES = 120 * 1024;

/** The most of a previous answer quoted back to the model, bytes. */
export const PREVIOUS_ANSWER_BYTES = 24 * 1024;

/** The most of the problems list quoted back, bytes. */
const PROBLEMS_BYTES = 8 * 1024;

const PLAN_FORMAT = [
  "## The answer",
  "",
  "Answer with the plan only: one JSON object, nothing before or after it (no prose, no code fence).",
  "It has these fields:",
  '- "project": a short name for the project (a string).',
  '- "tasks": an array of tasks. Each task has:',
  '  - "id": a unique id such as "T-001";',
  '  - "status": "pending";',
  '  - "priority": one of "critical", "high", "medium", "low";',
  `  - "description": what to build, at least ${MIN_DESCRIPTION_LENGTH} characters, clear to an engineer who has not read the description;`,
  '  - "dependencies": the ids of tasks that must be done first. They must form no cycle: if A depends on B, B must not depend on A, directly or through other tasks;',
  '  - "key_files": the files the task creates or changes;',
  '  - "acceptance_criteria": at least one criterion that can be checked;',
  '  - "test_steps": at least one step. Write a check as a shell command that exits 0 when the task is done (e.g. "npm test"); write a step a person does as "manual: ...";',
  '  - "prd_requirement": the requirement of the description the task serves.',
  "",
  "Make each task small enough for one coding agent session, in an order that builds the project step",
  "by step. Do not add other top-level fields. You have no tools: do not try to read or write files or",
  "run commands; everything you need is in this prompt.",
];

/**
 * The prompt that asks for a plan (the plan-file format of docs/plan-format.md) from outside text. Its
 * first lines are `Generate: plan` and `Attempt: N of M` (the scripted fake model picks its story by
 * them); every piece of `input` is fenced as untrusted data ({@link fenceUntrusted}) after a sentence
 * telling the model not to follow instructions inside. A second try quotes the previous answer (fenced
 * too: it was made from untrusted text) and its problems exactly. Pure.
 * @param secrets values to redact from the pieces besides the well-known token shapes.
 * @throws {InvalidInput} (`text`) when the prompt would be longer than {@link MAX_PROMPT_BYTES}.
 */
export function buildPlanPrompt(input: {
  readonly pieces: readonly UntrustedPiece[];
  readonly secrets: readonly string[];
  readonly attempt: GenerationTry;
  readonly previous?: PreviousAnswer | undefined;
}): string {
  const lines = [
    "Generate: plan",
    `Attempt: ${input.attempt.number} of ${input.attempt.of}`,
    "",
    "You are planning software work for whilly, which hands each task of a plan to a coding agent.",
    "Turn the project description below into a plan: a JSON object listing the tasks that build it.",
    "",
    UNTRUSTED_NOTICE,
    "",
    "## The project description",
    "",
    ...input.pieces.map((piece) => fenceUntrusted(piece, input.secrets)),
    "",
    ...PLAN_FORMAT,
  ];
  if (input.previous !== undefined) lines.push("", ...retrySection(input.previous, input.secrets));
  return checked(lines.join("\n"));
}

/**
 * The prompt that asks for a PRD (product requirements document, markdown) from an idea and, in the
 * interactive wizard, a person's answers. First lines `Generate: prd` and `Attempt: 1 of 1`; the idea
 * and answers are fenced as untrusted data like a plan's input. Pure.
 * @throws {InvalidInput} (`text`) when the prompt would be longer than {@link MAX_PROMPT_BYTES}.
 */
export function buildPrdPrompt(input: {
  readonly pieces: readonly UntrustedPiece[];
  readonly secrets: readonly string[];
}): string {
  const lines = [
    "Generate: prd",
    "Attempt: 1 of 1",
    "",
    "You write product requirements documents (PRDs) that engineers turn into tasks.",
    "Write the PRD of the project described below.",
    "",
    UNTRUSTED_NOTICE,
    "",
    "## The project",
    "",
    ...input.pieces.map((piece) => fenceUntrusted(piece, input.secrets)),
    "",
    "## The answer",
    "",
    "Answer with the PRD only, in Markdown, starting with a `# ` title line; no code fence around it.",
    "Sections, each a `## ` heading: Problem; Users; Goals and success criteria; Scope (in and out);",
    "Functional requirements (numbered FR-1, FR-2, ...); Non-functional requirements; Constraints;",
    "Technical notes; Open questions. Where the description says nothing, make a sensible, modest",
    "assumption and list it under Open questions. You have no tools: do not try to read or write",
    "files or run commands.",
  ];
  return checked(lines.join("\n"));
}

/** The section of a second try: the previous answer and its problems, quoted exactly. */
function retrySection(previous: PreviousAnswer, secrets: readonly string[]): string[] {
  const problems = capBytes(previous.problems.map((p) => `- ${p}`).join("\n"), PROBLEMS_BYTES);
  const fence = "`".repeat(Math.max(3, longestBacktickRun(problems) + 1));
  return [
    "## Your previous answer was not a valid plan",
    "",
    "whilly could not use your previous answer, quoted here:",
    "",
    fenceUntrusted(
      { kind: "previous_answer", text: previous.answer, maxBytes: PREVIOUS_ANSWER_BYTES },
      secrets,
    ),
    "",
    "These are the problems whilly found in it, exactly as it reported them:",
    "",
    `${fence}text`,
    problems,
    fence,
    "",
    "Answer again with the whole plan, every problem fixed, in the format above.",
  ];
}

function checked(prompt: string): string {
  const bytes = utf8Length(prompt);
  if (bytes > MAX_PROMPT_BYTES) {
    throw new InvalidInput("text", `the prompt would take ${bytes} bytes, more than ${MAX_PROMPT_BYTES}`, {
      hint: "shorten the text given to the model (a PRD file, an issue), or split it",
    });
  }
  return prompt;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
