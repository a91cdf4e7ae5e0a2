export { type App, createApp } from "./app.js";
export type { AppDeps, AppSettings } from "./deps.js";
export { toPlanSummaryPayload } from "./read-payload.js";
