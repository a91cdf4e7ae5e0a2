import { Unauthorized } from "@whilly/core";
import type { NewEvent, Store } from "../store/store.js";

/** A structured log line sink: `event` is a stable dotted name, fields carry ids. */
export type Logger = (level: "debug" | "info" | "warn" | "error", event: string, fields?: object) => void;

/**
 * Who is calling. `workerId` set: the caller may act only as that worker (per-worker bearer).
 * `workerId` undefined: the caller may act as any worker (in-process local mode, legacy shared token);
 * owner and version checks on tasks still apply.
 */
export type Caller = {
  readonly workerId: string | undefined;
  /**
   * True for the legacy shared token: its workers pick their own id and never register, so routes
   * that need the worker to exist (claim, heartbeat) register an unknown id on first use.
   */
  readonly registersWorkers?: boolean;
};

/** A per-worker bearer whose signature holds: the worker it names and the hash it is stored under. */
export type PresentedWorker = { readonly workerId: string; readonly tokenHash: string };

/**
 * Authentication of the control plane's callers. Every method throws {@link Unauthorized} on missing or
 * wrong credentials.
 */
export type AuthPort = {
  /**
   * Worker routes, before anything reads the body: refuses in process (no database) a credential that
   * cannot be valid: no header, another scheme, an empty token, or one that is neither a correctly
   * signed worker token nor the legacy shared token. A stranger thus gets the same 401 whatever body it
   * sends, and learns nothing about what the body should be. Whether a worker token is still stored is
   * checked later, by {@link AuthPort.authenticateWorker} or inside the operation itself.
   */
  screenWorker(authorization: string | undefined): Promise<void>;
  /** Worker routes: a per-worker bearer (looked up in `store`, so revocation is immediate) or the legacy shared token. */
  authenticateWorker(authorization: string | undefined, store: Store): Promise<Caller>;
  /**
   * The per-worker bearer in `authorization` when its signature holds, checked without the database;
   * `undefined` for anything else (no or another header, the legacy shared token, a forged token). Its
   * hash is not yet known to be stored: operations that check it in their own statement take it (see
   * `asPresentedWorker`), which saves a request its lookup. Optional: without it every worker request
   * goes through {@link AuthPort.authenticateWorker}.
   */
  presentedWorker?(authorization: string | undefined): Promise<PresentedWorker | undefined>;
  /** `POST /workers/register`: the bootstrap token only. */
  authenticateBootstrap(authorization: string | undefined): Promise<void>;
  /** Mints a bearer for a new worker; only `tokenHash` is stored. */
  issueWorkerToken(workerId: string): Promise<{ token: string; tokenHash: string }>;
  /**
   * The read API (`/api/v1/*`, `/openapi.json`): the admin token, or a live read-only token (looked up
   * in `store`, so revocation is immediate), or anyone when public reads are on. A worker's bearer and
   * the bootstrap token are not read tokens: a worker's machine runs agents, and what they print must
   * not unlock every plan's text and output (the plan summary route lets a live worker in besides).
   */
  authenticateReader(authorization: string | undefined, store: Store): Promise<void>;
};

/**
 * Wakes and waits for ready work. `waitForWork` resolves when a task of the plan may have become
 * ready, when `timeoutMs` passes, or when `signal` aborts; `notifyWork` is called after anything that
 * may make a task ready (import, a completion, a release).
 */
export type WorkCoordinator = {
  waitForWork(planId: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<void>;
  notifyWork(planId: string): void;
  /**
   * True when the coordinator hears the store's own ready signals (sent in the transaction that made a
   * task ready), so routes skip `notifyWork` after store writes: a second wake for the same task would
   * only cost a parked claim a wasted claim transaction.
   */
  readonly listensToStore?: boolean;
  /**
   * True when the coordinator itself wakes a parked claim of each plan every `claimRecheckMs`; the claim
   * route then parks for its whole bound at once instead of every parked request re-checking the database.
   */
  readonly rechecks?: boolean;
};

/**
 * Takes non-transition events (agent output summaries, findings, metrics) and writes them in batches
 * with idempotency keys. Transition events never go here: they are written in their own transaction.
 */
export type EventSink = { append(events: readonly NewEvent[]): void | Promise<void> };

/** Control-plane settings. Durations are ms. */
export type AppSettings = {
  /** Lease length given to a claim and renewed by heartbeats; the seed's visibility timeout. */
  readonly leaseMs: number;
  /** How long a claim may wait for a ready task before answering 204; 0 answers at once. */
  readonly claimWaitMs: number;
  /** While a claim waits, re-check the database this often, so a lost wake-up only delays. */
  readonly claimRecheckMs: number;
};

/** Everything the control plane needs, injected by each runtime's entry point. */
export type AppDeps = {
  /** Runs `use` with a store that lives for one request (one Neon client on Workers, a shared pool on Node). */
  withStore: <T>(use: (store: Store) => Promise<T>) => Promise<T>;
  auth: AuthPort;
  /** Parks long polls; without one a claim with nothing ready answers 204 at once. */
  coordinator?: WorkCoordinator;
  /** Where non-transition events go; without one they are written directly. */
  events?: EventSink;
  settings: AppSettings;
  log?: Logger;
  /** Aborted when the host shuts down: parked claims answer 204 at once and new ones do not park. */
  stopping?: AbortSignal;
  /**
   * The host's own secret values (its tokens, its database URL's password), hidden, besides the
   * well-known token shapes, in whatever workers send to be kept and in what the read API serves.
   */
  secrets?: readonly string[];
};

/**
 * Auth for the in-process control plane of `whilly run`: the caller is this process, so worker routes
 * and reads trust it (owner and version checks still apply) and registration is refused.
 */
export const inProcessAuth: AuthPort = {
  screenWorker: async () => {},
  authenticateWorker: async () => ({ workerId: undefined }),
  authenticateBootstrap: async () => {
    throw new Unauthorized("registration is not available in-process", { credential: "bootstrap" });
  },
  issueWorkerToken: async () => {
    throw new Unauthorized("registration is not available in-process", { credential: "bootstrap" });
  },
  authenticateReader: async () => {},
};
