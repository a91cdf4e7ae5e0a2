export { type App, createApp } from "./app.js";
export type { AppDeps, Authenticate, Caller, Logger, WorkCoordinator } from "./deps.js";
export { trustInProcessCaller } from "./deps.js";
