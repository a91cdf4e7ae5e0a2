export { type PlanGraphInput, renderPlanGraph, type StatusColor } from "./plan-graph.js";
export { terminalText } from "./terminal-text.js";
