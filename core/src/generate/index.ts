export { GenerationFailed, type GenerationFailure } from "./errors.js";
export {
  answerJson,
  answerMarkdown,
  type GenerationSource,
  originJson,
  type PlanAnswer,
  readPlanAnswer,
} from "./plan-answer.js";
export {
  buildPlanPrompt,
  buildPrdPrompt,
  type GenerationTry,
  MAX_PROMPT_BYTES,
  PREVIOUS_ANSWER_BYTES,
  type PreviousAnswer,
} from "./prompts.js";
export { SLUG_PATTERN, SLUG_WORDS, slugOfIdea, slugProblem } from "./slug.js";
export {
  capBytes,
  cleanUntrusted,
  DEFAULT_PIECE_BYTES,
  fenceUntrusted,
  UNTRUSTED_NOTICE,
  type UntrustedPiece,
  utf8Length,
} from "./untrusted.js";
