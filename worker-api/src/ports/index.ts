export type { AuthPort, Caller, PlanWriter, PresentedWorker } from "./auth.js";
export type { EventSink } from "./event-sink.js";
export type { Logger } from "./logger.js";
export type { WorkCoordinator } from "./work-coordinator.js";
