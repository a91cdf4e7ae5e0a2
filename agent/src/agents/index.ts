export { createClaudeAdapter } from "./claude/index.js";
export {
  CMD_PLACEHOLDERS,
  type CmdAdapterOptions,
  type CmdTemplate,
  cmdResult,
  createCmdAdapter,
  parseCmdTemplate,
  substituteCmd,
} from "./cmd/index.js";
export { type AgentDefaults, claimChoice, createAgentDispatch, taskAgentChoice } from "./dispatch.js";
export { type ProbeOptions, type ProbeResult, probeAgents, programProblem } from "./probe.js";
export {
  ADAPTER_FACTORIES,
  type AdapterFactory,
  type AgentRegistry,
  createAgentRegistry,
  KNOWN_AGENTS,
} from "./registry.js";
export { type AgentSettings, DEFAULT_PROBE_TIMEOUT_MS, parseAgentSettings } from "./settings.js";
export {
  type AgentFlags,
  type AgentSetup,
  findWorkingAgents,
  parseAgentFlags,
  type WorkingAgents,
} from "./setup.js";
export { type AgentPick, agentAttempt, createAdapterAgent, type TaskAgentOptions } from "./task-agent.js";
export type {
  AgentAdapter,
  AgentInvocation,
  AgentName,
  AgentStreamReader,
} from "./types.js";
