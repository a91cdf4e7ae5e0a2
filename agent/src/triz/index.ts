export {
  askContradiction,
  type ContradictionReport,
  DEFAULT_TRIZ_TIMEOUT_MS,
  TRIZ_EVENT_TYPES,
} from "./ask-contradiction.js";
export { parseTrizSettings, type TrizSettings, trizAgentOf } from "./settings.js";
