export type {
  AuthPort,
  Caller,
  OpenedSession,
  PlanWriter,
  PresentedWorker,
  Session,
  SessionRole,
} from "./auth.js";
export type { EventSink } from "./event-sink.js";
export type { Logger } from "./logger.js";
export type { WorkCoordinator } from "./work-coordinator.js";
