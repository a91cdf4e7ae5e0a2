import type { RetryBackoff } from "@whilly/core";
import type { SignInCodes } from "../auth/sign-in-codes.js";
import type { DurationHistogram } from "../metrics/histogram.js";
import type { AuthPort, EventSink, Logger, WorkCoordinator } from "../ports/index.js";
import type { Store } from "../store/store.js";
import type { EventFeed, EventStreamConfig, StreamFeedFactory } from "../stream/index.js";

/** Control-plane settings. Durations are ms. */
export type AppSettings = {
  /** Lease length given to a claim and renewed by heartbeats(`WHILLY_VISIBILITY_TIMEOUT`). */
  readonly leaseMs: number;
  /** How long a claim may wait for a ready task before answering 204; 0 answers at once. */
  readonly claimWaitMs: number;
  /** While a claim waits, re-check the database this often, so a lost wake-up only delays. */
  readonly claimRecheckMs: number;
  /**
   * The pause before a failed attempt's retry (`WHILLY_RETRY_BACKOFF`, `WHILLY_RETRY_BACKOFF_MAX`);
   * undefined for the store's default, 30 s doubling to 10 min (docs/retries.md).
   */
  readonly retryBackoff?: RetryBackoff | undefined;
  /**
   * Silence after which a worker is offline (`WHILLY_HEARTBEAT_TIMEOUT`): the read API reports a ready
   * task as waiting for a capability when no worker heard from within it can run the task. Default
   * `DEFAULT_HEARTBEAT_TIMEOUT_MS`.
   */
  readonly heartbeatTimeoutMs?: number | undefined;
  /** The audit-event streams' keep-alive, poll, per-client queue and replay bound; default `DEFAULT_EVENT_STREAM`. */
  readonly events?: EventStreamConfig | undefined;
};

/** Everything the control plane needs, injected by each runtime's entry point. */
export type AppDeps = {
  /** Runs `use` with a store that lives for one request (one Neon client on Workers, a shared pool on Node). */
  withStore: <T>(use: (store: Store) => Promise<T>) => Promise<T>;
  auth: AuthPort;
  /** Parks long polls; without one a claim with nothing ready answers 204 at once. */
  coordinator?: WorkCoordinator;
  /**
   * What the audit-event streams read and wait on (on Node: the store's event signals); without one
   * they read through `withStore` and wait by polling (`settings.events.pollMs`). A factory makes a feed
   * per stream (on Workers: one that parks in the Coordinator and counts the stream's subrequests).
   */
  eventFeed?: EventFeed | StreamFeedFactory;
  /** Where non-transition events go; without one they are written directly. */
  events?: EventSink;
  settings: AppSettings;
  log?: Logger;
  /** Aborted when the host shuts down: parked claims answer 204 at once and new ones do not park. */
  stopping?: AbortSignal;
  /**
   * Where claims record how long they took to answer (seconds), parked waits included: served by
   * `GET /metrics` as `whilly_claim_long_poll_duration_seconds`. Kept in process memory, so a host
   * whose memory is per isolate (Workers) leaves it out and the metric is absent there.
   */
  claimWaits?: DurationHistogram;
  /**
   * The host's own secret values (its tokens, its database URL's password), hidden, besides the
   * well-known token shapes, in whatever workers send to be kept and in what the read API serves.
   */
  secrets?: readonly string[];
  /**
   * `whilly run --ui`'s one-time sign-in codes and the admin token a redeemed code hands the browser
   * (`POST /api/v1/session/redeem`); without it that route answers 404.
   */
  signIn?: { codes: SignInCodes; adminToken: string };
};
