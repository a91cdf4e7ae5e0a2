export * from "./app/index.js";
export * from "./store/index.js";
export * from "./auth/index.js";
