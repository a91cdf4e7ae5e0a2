export { type App, createApp } from "./app.js";
export type { AppDeps, AppSettings, AuthPort, Caller, EventSink, Logger, WorkCoordinator } from "./deps.js";
export { inProcessAuth } from "./deps.js";
export { toPlanSummaryPayload } from "./read-payload.js";
