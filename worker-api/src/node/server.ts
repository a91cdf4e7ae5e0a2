import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, type Http2Bindings, type HttpBindings } from "@hono/node-server";
import { createApp } from "../app/app.js";
import { CLIENT_GONE_KEY } from "../app/client-gone.js";
import type { SignInCodes } from "../auth/sign-in-codes.js";
import { type Coordinator, startCoordinator } from "../coordinator/coordinator.js";
import { createEventBuffer, type EventBuffer } from "../events-buffer/event-buffer.js";
import { DurationHistogram, LONG_POLL_BOUNDS_SECONDS } from "../metrics/histogram.js";
import type { AuthPort, Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { DEFAULT_EVENT_STREAM, type StoreEventFeed, startStoreEventFeed } from "../stream/index.js";
import { type Sweeper, startSweeper } from "../sweeps/sweeper.js";
import { closeHttpServer, trackConnections } from "./close-http.js";
import { gzipJson } from "./gzip-json.js";
import { hangUpSignal } from "./hang-up.js";
import type { ServerSettings } from "./settings.js";
import { loadStaticSite, serveStaticSite } from "./static-site.js";

/** Options of {@link startNodeServer}. */
export type NodeServerOptions = {
  /** The store to serve; the caller opened it and closes it after {@link NodeServer.close}. */
  readonly store: Store;
  readonly settings: ServerSettings;
  readonly auth: AuthPort;
  /** TCP port; 0 picks a free one (see {@link NodeServer.url}). Default 8000. */
  readonly port?: number | undefined;
  /** Interface to bind; default `127.0.0.1` (this machine only). `0.0.0.0` serves other machines. */
  readonly host?: string | undefined;
  readonly log?: Logger | undefined;
  /**
   * Sweep expired leases and silent workers on a timer; default true. Off for a host that only shows a
   * store whose leases another process keeps (`whilly run --ui`).
   */
  readonly sweeps?: boolean | undefined;
  /** One-time sign-in codes for the dashboard (`whilly run --ui`); none when undefined. */
  readonly signIn?: { readonly codes: SignInCodes; readonly adminToken: string } | undefined;
};

/** A running control plane on Node. */
export type NodeServer = {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  readonly coordinator: Coordinator;
  readonly events: EventBuffer;
  /** What the audit-event streams wait on: the store's event signals, one subscription per server. */
  readonly eventFeed: StoreEventFeed;
  /** `undefined` when started with `sweeps: false`. */
  readonly sweeper: Sweeper | undefined;
  /**
   * Shuts down gracefully: parked claims answer 204, sweeps stop, the listener stops accepting and
   * in-flight requests finish (connections still open after `graceMs`, default 10 s, are cut), the
   * event buffer drains, and the coordinator stops listening. Does not close the store.
   */
  close(graceMs?: number): Promise<void>;
};

/**
 * Serves the control plane (`createApp`) over HTTP on Node with `@hono/node-server`, the `whilly
 * server` host. Besides the routes it runs what a long-lived control plane needs: the coordinator
 * that wakes parked claims (in-process, plus Postgres LISTEN/NOTIFY so replicas sharing a database
 * wake each other), the lease and worker sweeps on a timer, and the event buffer. It also serves the
 * web dashboard at `/` from the files of `settings.webDir` read at start (`static-site.ts`).
 * @throws when the port cannot be bound (e.g. `EADDRINUSE`) or the store's ready signals cannot be
 *   subscribed; nothing is left running then.
 */
export async function startNodeServer(options: NodeServerOptions): Promise<NodeServer> {
  const { store, settings, log } = options;
  const withStore = <T>(use: (s: Store) => Promise<T>) => use(store);
  const stopping = new AbortController();
  // Read before anything starts: a file that cannot be read then leaves nothing running.
  const site = loadStaticSite(settings.webDir);
  const coordinator = await startCoordinator({ store, recheckMs: settings.app.claimRecheckMs, log });
  let eventFeed: StoreEventFeed;
  try {
    const pollMs = (settings.app.events ?? DEFAULT_EVENT_STREAM).pollMs;
    eventFeed = await startStoreEventFeed({ store, pollMs, log });
  } catch (error) {
    await coordinator.close();
    throw error;
  }
  const events = createEventBuffer({
    write: (batch) => store.appendEvents(batch),
    maxDelayMs: settings.eventFlushMs,
    log,
  });
  const app = createApp({
    withStore,
    auth: options.auth,
    coordinator,
    events,
    eventFeed,
    settings: settings.app,
    secrets: settings.secrets,
    ...(log ? { log } : {}),
    stopping: stopping.signal,
    claimWaits: new DurationHistogram(LONG_POLL_BOUNDS_SECONDS),
    ...(options.signIn ? { signIn: { ...options.signIn } } : {}),
  });
  // Each request's environment carries its hang-up signal, made only when a route asks (parked claims).
  // JSON replies are gzipped for clients that accept it (`gzip-json.ts`); streams never are.
  const fetch = async (request: Request, env: HttpBindings | Http2Bindings) =>
    serveStaticSite(site, request) ??
    (await gzipJson(
      request,
      await app.fetch(request, {
        ...env,
        // This server speaks HTTP/1.1 only (createAdaptorServer without `createServer`).
        [CLIENT_GONE_KEY]: () =>
          hangUpSignal(env.incoming as IncomingMessage, env.outgoing as ServerResponse),
      }),
    ));
  const server = createAdaptorServer({ fetch }) as Server;
  const connections = trackConnections(server);
  try {
    await listen(server, options.port ?? 8000, options.host ?? "127.0.0.1");
  } catch (error) {
    await eventFeed.close();
    await coordinator.close();
    throw error;
  }
  const sweeper =
    (options.sweeps ?? true)
      ? startSweeper({
          withStore,
          intervalMs: settings.sweepIntervalMs,
          heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
          // Live workers heartbeat within a lease and within the heartbeat timeout: give them that long.
          firstSweepDelayMs: Math.min(settings.heartbeatTimeoutMs, settings.app.leaseMs),
          coordinator,
          events,
          log,
        })
      : undefined;
  const address = server.address() as AddressInfo;
  const url = `http://${urlHost(address.address)}:${address.port}`;
  if (site.files.size === 0) log?.("warn", "server.web_not_built", { dir: site.dir ?? null });
  log?.("info", "server.listening", {
    url,
    store: store.driver,
    lease_ms: settings.app.leaseMs,
    heartbeat_timeout_ms: settings.heartbeatTimeoutMs,
    sweep_interval_ms: settings.sweepIntervalMs,
    claim_wait_ms: settings.app.claimWaitMs,
    listens_to_store: coordinator.listensToStore === true,
  });

  let closing: Promise<void> | undefined;
  const close = async (graceMs = 10_000) => {
    log?.("info", "server.stopping", { parked_claims: coordinator.waiting });
    stopping.abort();
    await sweeper?.stop();
    const cut = await closeHttpServer(server, connections, graceMs);
    if (cut > 0) log?.("warn", "server.connections_cut", { connections: cut, grace_ms: graceMs });
    const lost = await events.drain();
    await eventFeed.close();
    await coordinator.close();
    log?.("info", "server.stopped", { events_lost: lost });
  };
  return {
    url,
    coordinator,
    events,
    eventFeed,
    sweeper,
    close: (graceMs) => {
      closing ??= close(graceMs);
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function urlHost(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}
