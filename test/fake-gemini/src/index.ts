export { type FakeGeminiEnvOptions, fakeGeminiEnv } from "./env.js";
export {
  type FakeGeminiScript,
  type GeminiEntry,
  type GeminiFault,
  type GeminiFunctionCall,
  GeminiScriptError,
  type GeminiStory,
  type GeminiTurn,
  type GeminiUsage,
  validateGeminiScript,
} from "./script.js";
export {
  type FakeGemini,
  type FakeGeminiOptions,
  type GeminiRequestLogEntry,
  startFakeGemini,
} from "./server.js";
