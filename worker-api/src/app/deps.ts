import type { TaskStore } from "@whilly/core";

/** A structured log line sink: `event` is a stable dotted name, fields carry ids. */
export type Logger = (level: "debug" | "info" | "warn" | "error", event: string, fields?: object) => void;

/**
 * Who is calling. `workerId` set: the caller may act only as that worker (per-worker bearer).
 * `workerId` undefined: the caller may act as any worker (in-process local mode, legacy shared token);
 * owner and version checks on tasks still apply.
 */
export type Caller = { readonly workerId: string | undefined };

/**
 * Authenticates a request from its `Authorization` header.
 * @throws {Unauthorized} when credentials are missing or wrong.
 */
export type Authenticate = (authorization: string | undefined) => Promise<Caller>;

/**
 * Wakes and waits for ready work. `waitForWork` resolves when a task of the plan may have become
 * ready, or after `timeoutMs`; `notifyWork` is called after anything that may make a task ready.
 */
export type WorkCoordinator = {
  waitForWork(planId: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<void>;
  notifyWork(planId: string): void;
};

/** Everything the control plane needs, injected by each runtime's entry point. */
export type AppDeps = {
  /** Runs `use` with a store that lives for one request (one Neon client on Workers, a shared pool on Node). */
  withStore: <T>(use: (store: TaskStore) => Promise<T>) => Promise<T>;
  /** Authenticates worker routes. */
  authenticate: Authenticate;
  /** Parks long polls; the default never waits, so a claim with nothing ready answers 204 at once. */
  coordinator?: WorkCoordinator;
  settings: {
    /** Lease length given to a claim and renewed by heartbeats (ms); the seed's visibility timeout. */
    leaseMs: number;
    /** How long a claim may wait for a ready task before answering 204 (ms); 0 answers at once. */
    claimWaitMs: number;
  };
  log?: Logger;
};

/** An {@link Authenticate} that lets every caller act as any worker: for in-process local mode only. */
export const trustInProcessCaller: Authenticate = async () => ({ workerId: undefined });
