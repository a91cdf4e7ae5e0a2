export { classifyAgentRun } from "./classify.js";
export { agentOutcomeDetail } from "./detail.js";
export { findResultObject } from "./find-result.js";
export { limitResetTime, type ProviderLimit, providerLimit } from "./limits.js";
export { COMPLETION_MARKER, endsWithCompletionMarker } from "./marker.js";
export type {
  AgentFailureReason,
  AgentOutcome,
  AgentRunReport,
  AgentUnavailableKind,
  AgentUsage,
  PermissionDenial,
  RawAgentResult,
} from "./outcome.js";
export { OUTPUT_TAIL_BYTES, outputTail, storableText, utf8Tail } from "./text.js";
export { AGENT_UNAVAILABLE_HINTS, agentUnavailable } from "./unavailable.js";
