import { COMPLETION_MARKER } from "../agent-result/marker.js";
import type { AttemptFailure } from "../attempts/index.js";

/** Which attempt this is: `number` of `max` (both ≥ 1). */
export type PromptAttempt = { readonly number: number; readonly max: number };

/** The line naming the attempt, `Attempt: 2 of 3`; the fake model finds the attempt by it. */
export function attemptLine(attempt: PromptAttempt): string {
  return `Attempt: ${attempt.number} of ${attempt.max}`;
}

/** What each known failure reason means, said to the agent. */
const REASON_TEXT: Readonly<Record<string, string>> = {
  verification_failed: "a check whilly ran on your work failed",
  merge_conflict:
    "the work did not merge into the plan's branch (a conflict with work finished meanwhile); this attempt starts from the new base",
  integration_failed: "the plan's checks failed after your work was merged with the rest of the plan",
  stalled: "the agent printed nothing for too long and was stopped",
  setup_failed: "the setup command failed before the agent started",
  timeout: "the agent ran out of time and was stopped",
  no_marker: `the final reply did not end with ${COMPLETION_MARKER}`,
  empty_result: "the agent finished without a final reply",
  max_turns: "the agent used up its turns",
  permission_denied: "a tool call was denied",
  is_error: "the agent ended with an error",
};

/**
 * The section telling an attempt what went wrong in the previous one: the reason (and what it means),
 * the failing step and its exit code when a check failed, the manual steps not run, and the end of the
 * output in a fence longer than any run of backticks inside it, so the output cannot close it.
 */
export function failureSection(failure: AttemptFailure): string[] {
  const meaning = REASON_TEXT[failure.reason];
  const lines = [
    "## What went wrong in the previous attempt",
    `Attempt ${failure.attempt} failed: ${failure.reason}${meaning === undefined ? "" : ` (${meaning})`}.`,
  ];
  if (failure.step !== undefined && failure.step !== "") lines.push(`Failing step: ${oneLine(failure.step)}`);
  if (failure.exit_code !== undefined && failure.exit_code !== null)
    lines.push(`Exit code: ${failure.exit_code}`);
  const tail = failure.output_tail?.trimEnd() ?? "";
  if (tail !== "") {
    const fence = "`".repeat(Math.max(3, longestBacktickRun(tail) + 1));
    lines.push("The end of its output:", `${fence}text`, tail, fence);
  }
  if (failure.manual_steps !== undefined && failure.manual_steps.length > 0) {
    lines.push("These steps are manual; whilly did not run them:");
    lines.push(...failure.manual_steps.map((step) => `- ${oneLine(step)}`));
  }
  lines.push("Find the cause, fix it, and check that every test step passes before you finish.");
  return lines;
}

/**
 * The prompt of a resumed session (`claude --resume`): the agent already has the task and its own work
 * in the conversation, so it gets only the attempt line, what went wrong, and when to print the marker.
 */
export function buildFollowUpPrompt(input: {
  readonly taskId: string;
  readonly attempt: PromptAttempt;
  readonly previousFailure: AttemptFailure;
}): string {
  return [
    [`Task id: ${input.taskId}`, attemptLine(input.attempt)],
    ["Your previous attempt at this task did not pass. You are continuing it in the same session."],
    failureSection(input.previousFailure),
    [
      "## Rules",
      "- Fix it. Then, when every criterion is met and every test step passes, end your final reply with",
      "  this line, alone, as its very last line:",
      COMPLETION_MARKER,
      "- Otherwise describe what is wrong or unfinished, and do not print that line anywhere.",
    ],
  ]
    .map((lines) => lines.join("\n"))
    .join("\n\n");
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, " ").trim();
}
