export { analyzePlanTriz } from "./analyze.js";
export {
  buildContradictionPrompt,
  type ContradictionAnswer,
  type ContradictionType,
  readContradictionAnswer,
} from "./contradiction.js";
export { type TrizFindingJson, type TrizReportJson, trizReportJson } from "./json.js";
export { OVER_ENGINEERING_WORDS } from "./over-engineering.js";
export { normaliseDescription } from "./overlaps.js";
export { renderTrizReport, type TrizColor } from "./render.js";
export { idealityScore, trizVerdict } from "./score.js";
export * from "./types.js";
