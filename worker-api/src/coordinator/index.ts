export { type Coordinator, type CoordinatorOptions, startCoordinator } from "./coordinator.js";
export { PlanWaiters } from "./plan-waiters.js";
