/**
 * How whilly's checks treat one `test_steps` entry (docs/verification.md):
 * - `command`: run through `sh -c`; exit 127 (command not found) makes it manual after all;
 * - `manual`: written `manual: ...`, recorded and never run;
 * - `prose`: reads as instructions for a person, not a command; recorded as manual, never run;
 * - `whilly`: calls whilly itself, which the checks never run (it would recurse into the queue).
 */
export type TestStepKind = "command" | "manual" | "prose" | "whilly";

const MANUAL_PREFIX = /^\s*manual\s*:/i;
const WHILLY_CALL = /^\s*(?:npx\s+)?whilly(?:-worker)?(?:\s|$)/;

/** Classifies a test step; see {@link TestStepKind}. Pure. */
export function classifyTestStep(step: string): TestStepKind {
  if (MANUAL_PREFIX.test(step)) return "manual";
  if (WHILLY_CALL.test(step)) return "whilly";
  return "command";
}

/** True when whilly's checks run `step` (a `command`); the other kinds are recorded as manual. */
export function isRunnableStep(step: string): boolean {
  return classifyTestStep(step) === "command";
}
