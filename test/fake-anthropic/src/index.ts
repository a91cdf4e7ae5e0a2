export { type FakeClaudeEnvOptions, fakeClaudeEnv } from "./env.js";
export type { Fault } from "./play.js";
export {
  type AttemptScripts,
  type FakeScript,
  type FakeUsage,
  ScriptError,
  type ScriptFault,
  type ScriptToolUse,
  type ScriptTurn,
  type TaskEntry,
  type TaskScript,
  validateScript,
} from "./script.js";
export {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type RequestLogEntry,
  startFakeAnthropic,
} from "./server.js";
