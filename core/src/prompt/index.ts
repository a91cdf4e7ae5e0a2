export { buildPrompt, COMPLETION_MARKER, type PromptPlan, type PromptTask } from "./build-prompt.js";
