export {
  type CheckFailure,
  type CheckRecord,
  type ChecksResult,
  COMMAND_NOT_FOUND,
  type RunChecksOptions,
  runChecks,
} from "./run-checks.js";
export { runShellStep, type ShellStepOptions, type ShellStepResult } from "./shell-step.js";
