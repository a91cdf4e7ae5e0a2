import { ConfigurationError } from "@whilly/core";
import type { AppSettings } from "./app/deps.js";
import { MIN_SIGNING_SECRET_LENGTH } from "./auth/signing-key.js";
import { MAX_LEASE_MS } from "./store/tasks/claim.js";

/** A long poll never parks longer than this (ms): the protocol's ceiling, under common proxy timeouts. */
export const MAX_CLAIM_WAIT_MS = 30_000;

/** The control plane's settings shared by every host (Node and Workers). Durations are ms. */
export type ControlPlaneSettings = {
  /** Lease, claim wait and recheck, as the app uses them. */
  readonly app: AppSettings;
  /** A worker silent for longer than this is marked offline and its tasks go back to `PENDING`. */
  readonly heartbeatTimeoutMs: number;
  /** Pause between sweeps of expired leases and silent workers (Node; Workers sweep by Cron Trigger). */
  readonly sweepIntervalMs: number;
  /** Longest wait of a buffered event before it is written. */
  readonly eventFlushMs: number;
  /** Token auth (`createTokenAuth`). */
  readonly auth: {
    /** The cluster-join secret, accepted only by `POST /workers/register`. */
    readonly bootstrapToken: string;
    /** The deprecated shared worker token, if still configured. */
    readonly legacyToken: string | undefined;
    /** The key that signs worker bearers; undefined derives it from the bootstrap token. */
    readonly signingSecret: string | undefined;
    /** Silences the one-time warning about the legacy shared token. */
    readonly suppressLegacyWarning: boolean;
  };
};

/** Environment variables as strings (Node's `process.env`, or a Worker's string vars and secrets). */
export type StringEnv = Readonly<Record<string, string | undefined>>;

/**
 * Reads the settings every control-plane host shares, appending a message per bad variable to
 * `problems` (the caller throws once, naming them all):
 *
 * - `WHILLY_WORKER_BOOTSTRAP_TOKEN` (required): the cluster-join secret `whilly worker register` presents.
 * - `WHILLY_WORKER_TOKEN` (optional, deprecated): a shared bearer for every worker;
 *   `WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1` silences its one-time warning.
 * - `WHILLY_TOKEN_SECRET` (optional, 32+ characters): signs worker bearers; without it the key is
 *   derived from the bootstrap token.
 * - `WHILLY_VISIBILITY_TIMEOUT` (s, default 900, at most a day): a claim's lease, renewed by heartbeats.
 * - `WHILLY_HEARTBEAT_TIMEOUT` (s, default 120): silence after which a worker is offline.
 * - `WHILLY_SWEEP_INTERVAL` (s, default 15): pause between lease and worker sweeps.
 * - `WHILLY_CLAIM_TIMEOUT` (s, default 30, at most 30): how long a claim waits before 204.
 * - `WHILLY_CLAIM_RECHECK` (s, default 5): how often a plan's parked claims re-check the database when
 *   no signal came; longer than the claim timeout means never within one wait.
 * - `WHILLY_EVENT_FLUSH_MS` (ms, default 100, at most 60000): the event buffer's flush delay.
 *
 * Seconds may be fractional, so tests can use short leases.
 */
export function readControlPlaneSettings(env: StringEnv, problems: string[]): ControlPlaneSettings {
  const duration = (name: string, fallback: number, unitMs: number, max = Number.POSITIVE_INFINITY) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const ms = Math.round(Number(raw) * unitMs);
    if (!Number.isFinite(ms) || ms <= 0 || ms > max) {
      const unit = unitMs === 1 ? "milliseconds" : "seconds";
      const bound = Number.isFinite(max) ? ` up to ${max / unitMs}` : "";
      problems.push(`${name} must be a positive number of ${unit}${bound}; got '${raw}'`);
      return fallback;
    }
    return ms;
  };
  const bootstrapToken = env.WHILLY_WORKER_BOOTSTRAP_TOKEN?.trim() ?? "";
  if (bootstrapToken === "") problems.push("WHILLY_WORKER_BOOTSTRAP_TOKEN is not set");
  const signingSecret = env.WHILLY_TOKEN_SECRET?.trim() || undefined;
  if (signingSecret !== undefined && signingSecret.length < MIN_SIGNING_SECRET_LENGTH) {
    problems.push(`WHILLY_TOKEN_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters long`);
  }
  return {
    app: {
      leaseMs: duration("WHILLY_VISIBILITY_TIMEOUT", 900_000, 1000, MAX_LEASE_MS),
      claimWaitMs: duration("WHILLY_CLAIM_TIMEOUT", MAX_CLAIM_WAIT_MS, 1000, MAX_CLAIM_WAIT_MS),
      claimRecheckMs: duration("WHILLY_CLAIM_RECHECK", 5000, 1000),
    },
    heartbeatTimeoutMs: duration("WHILLY_HEARTBEAT_TIMEOUT", 120_000, 1000),
    sweepIntervalMs: duration("WHILLY_SWEEP_INTERVAL", 15_000, 1000),
    eventFlushMs: duration("WHILLY_EVENT_FLUSH_MS", 100, 1, 60_000),
    auth: {
      bootstrapToken,
      legacyToken: env.WHILLY_WORKER_TOKEN?.trim() || undefined,
      signingSecret,
      suppressLegacyWarning: env.WHILLY_SUPPRESS_WORKER_TOKEN_WARNING?.trim() === "1",
    },
  };
}

/** @throws {ConfigurationError} naming every problem, when there are any. */
export function throwProblems(problems: readonly string[], prefix: string, hint: string): void {
  if (problems.length > 0) throw new ConfigurationError(`${prefix}${problems.join("; ")}`, { hint });
}
