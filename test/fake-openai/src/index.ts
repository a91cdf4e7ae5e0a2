export { FAKE_OPENAI_KEY_VARIABLE, type FakeCodexEnvOptions, fakeCodexEnv } from "./env.js";
export type { Fault } from "./play.js";
export {
  type AttemptScripts,
  type FakeScript,
  type FakeUsage,
  type FaultKind,
  type ScriptCall,
  ScriptError,
  type ScriptFault,
  type ScriptTurn,
  type TaskEntry,
  type TaskScript,
  validateScript,
} from "./script.js";
export { type FakeOpenAI, type FakeOpenAIOptions, type RequestLogEntry, startFakeOpenAI } from "./server.js";
