export { createStore } from "./create-store.js";
export type { Db, Tx } from "./db.js";
export { translateError } from "./errors.js";
export type { NewEvent } from "./events/insert-events.js";
export {
  type ConnectOptions,
  connectLocalStore,
  type HandOverAnswer,
  type LocalStoreServer,
  type MethodKind,
  requestHandOver,
  type ServeOptions,
  STORE_METHODS,
  serveStoreLocally,
} from "./local-socket/index.js";
export { migrationsFolder } from "./migrations-folder.js";
export { createPostgresDatabase } from "./open/create-database.js";
export { type EmbeddedStoreOptions, openEmbeddedStore, openInMemoryStore } from "./open/embedded.js";
export { migratePostgres, openPostgresStore } from "./open/postgres.js";
export { acquireStoreLock, lockPathFor, type StoreLock } from "./open/store-lock.js";
export type { ListenForReady, ListenOptions, ReadyHandler, ReadyListener } from "./ready/listener.js";
export { EVENTS_CHANNEL, READY_CHANNEL } from "./ready/signal-ready.js";
export {
  type EventCursor,
  LOG_START,
  type SettledEvent,
  type Store,
  type StoreDriver,
} from "./store.js";
export type { ReadTokenRecord } from "./workers/read-tokens.js";
export { REVOKED_REASON, type RevokeResult } from "./workers/registration.js";
