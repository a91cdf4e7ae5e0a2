export {
  AGENT_NAME,
  type AgentChoice,
  type AgentLevel,
  type AgentLevels,
  agentNameSchema,
  chooseAgent,
  DEFAULT_AGENT,
  MODEL_NAME,
  modelNameSchema,
  TAG_NAME,
  tagNameSchema,
} from "./choice.js";
export {
  DEFAULT_CAPABILITIES,
  describeWaitingFor,
  missingPieces,
  type RunChoice,
  type WaitingFor,
  type WaitingTask,
} from "./routing.js";
