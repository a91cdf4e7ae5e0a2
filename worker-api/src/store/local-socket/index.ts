export { type ConnectOptions, connectLocalStore, type HandOverAnswer, requestHandOver } from "./connect.js";
export { type MethodKind, STORE_METHODS } from "./methods.js";
export { type LocalStoreServer, type ServeOptions, serveStoreLocally } from "./serve.js";
