export { type PlanGraphInput, renderPlanGraph, type StatusColor } from "./plan-graph.js";
