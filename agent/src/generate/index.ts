export {
  askModel,
  GENERATION_DISALLOWED_TOOLS,
  type GenerationAgent,
  generationArgv,
  type ModelAnswer,
} from "./ask-model.js";
export {
  type GeneratedPlan,
  type GenerationOptions,
  type GenerationProgress,
  generatePlan,
  generatePrd,
  PLAN_TRIES,
} from "./generate.js";
export { MODEL_ENV_NAMES, MODEL_ENV_PREFIXES, modelEnv } from "./model-env.js";
export { DEFAULT_GENERATE_TIMEOUT_MS, generationAgentFromEnv } from "./settings.js";
