export { type Connections, closeHttpServer, trackConnections } from "./close-http.js";
export { jsonLogger } from "./json-log.js";
export { type NodeServer, type NodeServerOptions, startNodeServer } from "./server.js";
export { MAX_CLAIM_WAIT_MS, parseServerSettings, type ServerSettings } from "./settings.js";
export { loadStaticSite, type StaticSite, serveStaticSite, WEB_SECURITY_HEADERS } from "./static-site.js";
