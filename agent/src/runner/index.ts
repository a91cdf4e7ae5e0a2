export { checkAgentBin } from "./agent-bin.js";
export { agentEnvOf, GIT_CREDENTIAL_VARIABLES, isGitCredential, isKeptFromAgent } from "./agent-env.js";
export { claudeArgv, claudeEnv, permissionFlags } from "./argv.js";
export {
  type ClaudeAgentOptions,
  type ClaudeAttemptOptions,
  createClaudeAgent,
  createClaudeAttempt,
  previousFailureOf,
} from "./attempt.js";
export { type AttemptRecord, endOrphanedAttempts, type OrphanReport } from "./attempt-record.js";
export { ATTEMPT_ID_VARIABLE, endAttemptProcesses, findAttemptProcesses } from "./end-processes.js";
export { type ProcessId, procAvailable } from "./proc-table.js";
export {
  endRunningAttempts,
  type ProcessGroupOptions,
  type ProcessGroupResult,
  runProcessGroup,
} from "./process-group.js";
export {
  type AgentRunResult,
  DEFAULT_ACTIVITY_INTERVAL_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  type RunAgentInput,
  runAgent,
} from "./run-agent.js";
export { type RunClaudeInput, runClaude } from "./run-claude.js";
export {
  type ClaudePermissions,
  type ClaudeSettings,
  DEFAULT_CLAUDE_MODEL,
  DEFAULT_NO_PROXY,
  parseClaudeSettings,
  ROOT_ALLOWED_TOOLS,
} from "./settings.js";
export { StreamEvents, throttle } from "./stream-events.js";
