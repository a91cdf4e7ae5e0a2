import { ConfigurationError } from "@whilly/core";
import { z } from "zod";
import type { AppSettings } from "../app/deps.js";
import { MIN_SIGNING_SECRET_LENGTH } from "../auth/signing-key.js";
import type { NeonConnection } from "../store/open/neon.js";

/** A long poll never parks longer than this (ms), whatever the settings say: the protocol's ceiling. */
export const MAX_CLAIM_WAIT_MS = 30_000;

/** The Worker's settings, parsed once per isolate from its vars and secrets. Durations are ms. */
export type WorkersSettings = {
  readonly database: NeonConnection;
  readonly app: AppSettings;
  /** A worker whose last heartbeat is older than this is marked offline by the sweep and loses its tasks. */
  readonly heartbeatTimeoutMs: number;
  /** How long the event buffer gathers rows before it writes them to Postgres. */
  readonly eventFlushMs: number;
  /** Secrets and switches of the token auth (`createTokenAuth`). */
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

const text = z.string().optional();

const schema = z.object({
  WHILLY_DATABASE_URL: text,
  WHILLY_NEON_WS_PROXY: text,
  WHILLY_WORKER_BOOTSTRAP_TOKEN: text,
  WHILLY_WORKER_TOKEN: text,
  WHILLY_TOKEN_SECRET: text,
  WHILLY_SUPPRESS_WORKER_TOKEN_WARNING: text,
  WHILLY_VISIBILITY_TIMEOUT: text,
  WHILLY_HEARTBEAT_TIMEOUT: text,
  WHILLY_CLAIM_TIMEOUT: text,
  WHILLY_CLAIM_RECHECK: text,
  WHILLY_EVENT_FLUSH_MS: text,
});

/**
 * Validates the Worker's environment (`wrangler.toml` vars plus secrets). Only strings count: wrangler
 * passes vars as strings, and a binding of another type under one of these names is a mistake.
 *
 * - `WHILLY_DATABASE_URL` (secret, required): `postgres://` or `postgresql://`; a Neon connection string.
 * - `WHILLY_WORKER_BOOTSTRAP_TOKEN` (secret, required): the token `whilly worker register` presents.
 * - `WHILLY_WORKER_TOKEN` (secret, optional): the deprecated shared worker token;
 *   `WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1` silences its warning.
 * - `WHILLY_TOKEN_SECRET` (secret, optional, 32+ characters): signs worker bearers; without it the
 *   key is derived from the bootstrap token.
 * - `WHILLY_NEON_WS_PROXY` (optional, `host:port`): a local WebSocket-to-TCP proxy in front of plain
 *   Postgres; never set it in production.
 * - `WHILLY_VISIBILITY_TIMEOUT` (s, default 900): a claim's lease, renewed by heartbeats.
 * - `WHILLY_HEARTBEAT_TIMEOUT` (s, default 120): silence after which a worker is offline.
 * - `WHILLY_CLAIM_TIMEOUT` (s, default 30, at most 30): how long a claim waits before 204.
 * - `WHILLY_CLAIM_RECHECK` (s, default 5): a parked claim re-reads the database this often.
 * - `WHILLY_EVENT_FLUSH_MS` (ms, default 100): the event buffer's flush delay.
 * @throws {ConfigurationError} naming every bad variable.
 */
export function parseWorkersSettings(env: object): WorkersSettings {
  const strings = Object.fromEntries(Object.entries(env).filter(([, value]) => typeof value === "string"));
  const raw = schema.parse(strings);
  const problems: string[] = [];
  const required = (name: keyof typeof raw): string => {
    const value = raw[name]?.trim();
    if (!value) problems.push(`${name} is not set`);
    return value ?? "";
  };
  const duration = (name: keyof typeof raw, fallback: number, unitMs: number, max = Infinity): number => {
    const value = raw[name]?.trim();
    if (!value) return fallback;
    const parsed = Number(value) * unitMs;
    if (!Number.isFinite(parsed) || parsed <= 0 || parsed > max) {
      problems.push(`${name} must be a positive number${max < Infinity ? ` up to ${max / unitMs}` : ""}`);
      return fallback;
    }
    return Math.max(1, Math.round(parsed));
  };

  const url = required("WHILLY_DATABASE_URL").replace(/^(postgres(?:ql)?)\+asyncpg:/, "$1:");
  if (url && !/^postgres(ql)?:\/\/./.test(url)) {
    problems.push("WHILLY_DATABASE_URL must start with postgres:// or postgresql://");
  }
  const wsProxy = raw.WHILLY_NEON_WS_PROXY?.trim() || undefined;
  if (wsProxy !== undefined && !/^[\w.-]+:\d+$/.test(wsProxy)) {
    problems.push("WHILLY_NEON_WS_PROXY must be host:port");
  }
  const bootstrapToken = required("WHILLY_WORKER_BOOTSTRAP_TOKEN");
  const signingSecret = raw.WHILLY_TOKEN_SECRET?.trim() || undefined;
  if (signingSecret !== undefined && signingSecret.length < MIN_SIGNING_SECRET_LENGTH) {
    problems.push(`WHILLY_TOKEN_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters long`);
  }
  const settings: WorkersSettings = {
    database: { url, wsProxy },
    app: {
      leaseMs: duration("WHILLY_VISIBILITY_TIMEOUT", 900_000, 1000, 86_400_000),
      claimWaitMs: duration("WHILLY_CLAIM_TIMEOUT", MAX_CLAIM_WAIT_MS, 1000, MAX_CLAIM_WAIT_MS),
      claimRecheckMs: duration("WHILLY_CLAIM_RECHECK", 5_000, 1000, MAX_CLAIM_WAIT_MS),
    },
    heartbeatTimeoutMs: duration("WHILLY_HEARTBEAT_TIMEOUT", 120_000, 1000),
    eventFlushMs: duration("WHILLY_EVENT_FLUSH_MS", 100, 1, 60_000),
    auth: {
      bootstrapToken,
      legacyToken: raw.WHILLY_WORKER_TOKEN?.trim() || undefined,
      signingSecret,
      suppressLegacyWarning: raw.WHILLY_SUPPRESS_WORKER_TOKEN_WARNING?.trim() === "1",
    },
  };
  if (problems.length > 0) {
    throw new ConfigurationError(`bad Worker environment: ${problems.join("; ")}`, {
      hint: "set vars in wrangler.toml and secrets with `wrangler secret put NAME` (see docs/deploy-workers.md)",
    });
  }
  return settings;
}

/**
 * {@link parseWorkersSettings} once per `env` object (workerd hands the same one to every request of an
 * isolate), remembering a failure too so every request reports it without parsing again.
 */
export function settingsFor(env: object): WorkersSettings | ConfigurationError {
  let parsed = cache.get(env);
  if (parsed === undefined) {
    try {
      parsed = parseWorkersSettings(env);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      parsed = error;
    }
    cache.set(env, parsed);
  }
  return parsed;
}

const cache = new WeakMap<object, WorkersSettings | ConfigurationError>();
