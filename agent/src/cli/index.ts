export { parseWorkerArgs, type WorkerFlags } from "./args.js";
export type { WorkerIo, WorkerOut } from "./io.js";
export { MIN_IDLE_POLL_MS, type WorkerMainOptions, workerMain } from "./main.js";
export { parseRegisterSettings, type RegisterSettings, registerMain } from "./register.js";
export { reportUncaughtWorkerError, reportWorkerError } from "./report.js";
export { parseWorkerSettings, type WorkerSettings } from "./settings.js";
export {
  createHttpTransport,
  DEFAULT_TIMEOUTS,
  type HttpTransport,
  type TransportTimeouts,
} from "./transport.js";
export { workerIdFromToken } from "./worker-id.js";
