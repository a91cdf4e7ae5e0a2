export { compareIds } from "./compare.js";
export { type DependencyCycle, detectCycles, formatCycle } from "./cycles.js";
export { topologicalDepth } from "./depth.js";
export type { DagTask, DagTaskWithStatus } from "./graph.js";
export { blockedTasks, readyTasks } from "./readiness.js";
