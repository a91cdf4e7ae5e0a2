import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from "undici";
import type { Fetch } from "../client/task-client.js";

/** Timeouts of the worker's HTTP connection pool, ms. */
export type TransportTimeouts = {
  /** Establishing a TCP (and TLS) connection. */
  readonly connectMs: number;
  /**
   * Waiting for a reply's headers. A parked claim gets its headers only when it ends (a task, or 204
   * after the control plane's wait of up to 30 s), so this must be well above that wait.
   */
  readonly headersMs: number;
  /** Silence between body chunks once the headers arrived. */
  readonly bodyMs: number;
  /** How long an idle connection stays open for the next request. */
  readonly keepAliveMs: number;
};

/** Defaults: a 30 s long poll fits with room to spare; a dead connection is noticed within ~75 s. */
export const DEFAULT_TIMEOUTS: TransportTimeouts = {
  connectMs: 10_000,
  headersMs: 75_000,
  bodyMs: 75_000,
  keepAliveMs: 60_000,
};

/** An HTTP transport for the task client, and a way to close its connections. */
export type HttpTransport = { readonly fetch: Fetch; close(): Promise<void> };

/**
 * A fetch-shaped transport over one undici connection pool with keep-alive, so the claim, heartbeat and
 * report requests of a worker reuse their connections instead of opening one per request.
 */
export function createHttpTransport(timeouts: TransportTimeouts = DEFAULT_TIMEOUTS): HttpTransport {
  const dispatcher = new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    keepAliveMaxTimeout: timeouts.keepAliveMs,
  });
  const fetch: Fetch = async (url, init) => {
    const response = await undiciFetch(url, { ...(init as unknown as UndiciRequestInit), dispatcher });
    // undici's Response is the WHATWG one the client reads (status, ok, text()); only the types differ.
    return response as unknown as Response;
  };
  return { fetch, close: () => dispatcher.close() };
}
