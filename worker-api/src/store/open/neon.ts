import { neonConfig, Pool } from "@neondatabase/serverless";
import * as schema from "@whilly/schema";
import { drizzle } from "drizzle-orm/neon-serverless";
import { createStore } from "../create-store.js";
import type { Db } from "../db.js";
import type { Store } from "../store.js";

/** Where a Neon store connects. */
export type NeonConnection = {
  /** A `postgres://` URL: a Neon connection string in production, any Postgres behind `wsProxy` locally. */
  readonly url: string;
  /**
   * `host:port` of a local WebSocket-to-TCP proxy that forwards to plain Postgres (development and tests);
   * undefined for real Neon, which speaks WebSocket itself over TLS.
   */
  readonly wsProxy?: string | undefined;
};

/**
 * Opens a store through the Neon serverless driver (Postgres over a WebSocket), for the Workers
 * runtime. A Worker may not reuse a connection across requests (workerd refuses I/O on behalf of
 * another request), so open one store per unit of work and `close()` it before the work ends; opening
 * costs nothing until the first query connects.
 * @param options.max connections the store may open (default 2: a transaction and one outside it).
 */
export function openNeonStore(connection: NeonConnection, options: { max?: number } = {}): Store {
  const pool = openNeonPool(connection, options.max ?? 2);
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return createStore(db, { driver: "postgres", close: () => pool.end() });
}

/**
 * A pool of up to `max` Neon driver connections (pg's Pool interface), for the same one unit of work
 * as {@link openNeonStore}: the store's own, and tests' raw transactions.
 */
export function openNeonPool(connection: NeonConnection, max: number): Pool {
  configureNeon(connection.wsProxy);
  const pool = new Pool({ connectionString: connection.url, max });
  // A dropped idle socket would otherwise surface as an unhandled error event; the next query reports it.
  pool.on("error", () => {});
  return pool;
}

/**
 * The driver's settings are module-wide. Through a local proxy: plain `ws://`, no TLS inside the
 * socket, and no pipelined startup, which only works with cleartext passwords (a stock Postgres asks
 * for SCRAM and rejects a pipelined login).
 */
function configureNeon(wsProxy: string | undefined): void {
  if (wsProxy === undefined) {
    neonConfig.wsProxy = (host) => `${host}/v2`;
    neonConfig.useSecureWebSocket = true;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = "password";
    return;
  }
  neonConfig.wsProxy = (host, port) => `${wsProxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}
