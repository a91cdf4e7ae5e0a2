export * from "./app/index.js";
export * from "./auth/index.js";
export type { StringEnv } from "./control-plane-settings.js";
export * from "./coordinator/index.js";
export * from "./events-buffer/index.js";
export * from "./node/index.js";
export type { AuthPort, Caller, EventSink, Logger, WorkCoordinator } from "./ports/index.js";
export * from "./store/index.js";
export * from "./sweeps/index.js";
