export { buildPrompt, COMPLETION_MARKER, type PromptPlan, type PromptTask } from "./build-prompt.js";
export { attemptLine, buildFollowUpPrompt, failureSection, type PromptAttempt } from "./feedback.js";
