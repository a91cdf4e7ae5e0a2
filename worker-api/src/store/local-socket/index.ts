export { connectLocalStore } from "./connect.js";
export { type LocalStoreServer, serveStoreLocally } from "./serve.js";
