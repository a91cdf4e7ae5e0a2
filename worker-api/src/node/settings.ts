import { ConfigurationError } from "@whilly/core";
import type { AppSettings } from "../app/deps.js";

/** A long poll never parks longer than this (ms): the protocol's ceiling, under common proxy timeouts. */
export const MAX_CLAIM_WAIT_MS = 30_000;

/** Settings of `whilly server`, read once from the environment. Durations are ms. */
export type ServerSettings = {
  /** Lease, claim wait and recheck, as the app uses them. */
  readonly app: AppSettings;
  /** A worker silent for longer than this is marked offline and its tasks go back to `PENDING`. */
  readonly heartbeatTimeoutMs: number;
  /** Pause between sweeps of expired leases and silent workers. */
  readonly sweepIntervalMs: number;
  /** Longest wait of a buffered event before it is written. */
  readonly eventFlushMs: number;
  /** Token auth (`createTokenAuth`). */
  readonly auth: {
    readonly bootstrapToken: string;
    readonly legacyToken: string | undefined;
    readonly signingSecret: string | undefined;
    readonly suppressLegacyWarning: boolean;
  };
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Validates the environment of `whilly server` (the database URL is read with the CLI's other
 * settings, since every command opens the store the same way):
 *
 * - `WHILLY_WORKER_BOOTSTRAP_TOKEN` (required): the cluster-join secret `whilly worker register` presents.
 * - `WHILLY_WORKER_TOKEN` (optional, deprecated): a shared bearer for every worker;
 *   `WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1` silences its one-time warning.
 * - `WHILLY_TOKEN_SECRET` (optional, 32+ characters): signs worker bearers; without it the key is
 *   derived from the bootstrap token.
 * - `WHILLY_VISIBILITY_TIMEOUT` (s, default 900): a claim's lease, renewed by heartbeats.
 * - `WHILLY_HEARTBEAT_TIMEOUT` (s, default 120): silence after which a worker is offline.
 * - `WHILLY_SWEEP_INTERVAL` (s, default 15): pause between lease and worker sweeps.
 * - `WHILLY_CLAIM_TIMEOUT` (s, default 30, at most 30): how long a claim waits before 204.
 * - `WHILLY_CLAIM_RECHECK` (s, default 5): how often a plan's parked claims re-check the database
 *   when no signal came (one claim per plan, not per parked request).
 * - `WHILLY_EVENT_FLUSH_MS` (ms, default 100): the event buffer's flush delay.
 *
 * Seconds may be fractional, so tests can use short leases.
 * @throws {ConfigurationError} naming every bad or missing variable.
 */
export function parseServerSettings(env: Env): ServerSettings {
  const problems: string[] = [];
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
  const leaseMs = duration("WHILLY_VISIBILITY_TIMEOUT", 900_000, 1000);
  const heartbeatTimeoutMs = duration("WHILLY_HEARTBEAT_TIMEOUT", 120_000, 1000);
  const sweepIntervalMs = duration("WHILLY_SWEEP_INTERVAL", 15_000, 1000);
  const claimWaitMs = duration("WHILLY_CLAIM_TIMEOUT", MAX_CLAIM_WAIT_MS, 1000, MAX_CLAIM_WAIT_MS);
  const claimRecheckMs = duration("WHILLY_CLAIM_RECHECK", 5000, 1000);
  const eventFlushMs = duration("WHILLY_EVENT_FLUSH_MS", 100, 1);
  if (problems.length > 0) {
    throw new ConfigurationError(problems.join("; "), {
      hint: "set WHILLY_WORKER_BOOTSTRAP_TOKEN to a long random secret (e.g. openssl rand -base64 32); durations are seconds unless named _MS",
    });
  }
  return {
    app: { leaseMs, claimWaitMs, claimRecheckMs },
    heartbeatTimeoutMs,
    sweepIntervalMs,
    eventFlushMs,
    auth: {
      bootstrapToken,
      legacyToken: env.WHILLY_WORKER_TOKEN?.trim() || undefined,
      signingSecret: env.WHILLY_TOKEN_SECRET?.trim() || undefined,
      suppressLegacyWarning: env.WHILLY_SUPPRESS_WORKER_TOKEN_WARNING === "1",
    },
  };
}
