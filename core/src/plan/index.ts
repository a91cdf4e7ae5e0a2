export { canonicalJson } from "./canonical-json.js";
export { exportPlan } from "./export.js";
export {
  instructionWarnings,
  joinInstructions,
  PLACED_INSTRUCTION_KEYS,
  readStoredInstructions,
  type SplitInstructions,
  splitInstructions,
} from "./instructions.js";
export { findJsonSyntaxError, type JsonSyntaxError } from "./json-syntax.js";
export { MAX_DESCRIPTION_BYTES, MAX_ID_LENGTH, MAX_INT4, MAX_NESTING, MAX_VERSION } from "./limits.js";
export {
  issueRefProblem,
  MAX_ORIGIN_TEXT,
  ORIGIN_FIELDS,
  ORIGIN_KINDS,
  originToJson,
  parseGithubIssueRef,
} from "./origin.js";
export { PLAN_FIELDS, parsePlanFile, parsePlanObject } from "./parse-plan.js";
export { TASK_FIELDS } from "./parse-task.js";
export { classifyTestStep, isRunnableStep, type TestStepKind, testStepWarnings } from "./test-steps.js";
export { idProblem, unstorableText } from "./text.js";
