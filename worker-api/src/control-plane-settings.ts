import {
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_RETRY_BACKOFF_MAX_MS,
  DEFAULT_RETRY_BACKOFF_MS,
  MAX_LEASE_MS,
  type RetryBackoff,
  readDuration,
  type SettingsProblem,
  type StringEnv,
  secretValuesOf,
  settingsError,
} from "@whilly/core";
import type { AppSettings } from "./app/deps.js";
import type { OidcSettings } from "./auth/oidc.js";
import { readOidcSettings } from "./auth/oidc-settings.js";
import { DEFAULT_SESSION_TTL_MS } from "./auth/session.js";
import { MIN_SIGNING_SECRET_LENGTH } from "./auth/signing-key.js";
import { MIN_WORKER_SECRET_LENGTH, STRONG_SECRET_HOWTO, workerSecretProblem } from "./auth/worker-secrets.js";
import { readEventStreamConfig } from "./stream/settings.js";

/** A long poll never parks longer than this (ms): the protocol's ceiling, under common proxy timeouts. */
export const MAX_CLAIM_WAIT_MS = 30_000;

/** The longest `WHILLY_SESSION_TTL` (ms): 7 days; a browser signs in again at least weekly. */
export const MAX_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

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
    /** `WHILLY_ADMIN_TOKEN`: reads the read API; undefined for none. */
    readonly adminToken: string | undefined;
    /** `WHILLY_PUBLIC_READ=1`: the read API answers anyone. */
    readonly publicRead: boolean;
    /** `WHILLY_OIDC_*`: GitHub Actions workflows that may create plans; undefined when off. */
    readonly oidc: OidcSettings | undefined;
    /** `WHILLY_SESSION_TTL`: how long a browser session cookie is honoured (ms). */
    readonly sessionTtlMs: number;
  };
  /**
   * Values hidden in what the control plane keeps and serves: its tokens, and the environment's
   * secrets (variables named KEY, TOKEN, SECRET or PASSWORD, URL passwords such as the database URL's).
   */
  readonly secrets: readonly string[];
};

export type { StringEnv };

/**
 * Reads the settings every control-plane host shares, appending a problem (message and hint) per bad
 * variable to `problems` (the caller throws once, naming them all, see {@link throwProblems}):
 *
 * - `WHILLY_WORKER_BOOTSTRAP_TOKEN` (required, {@link MIN_WORKER_SECRET_LENGTH}+ characters): the
 *   cluster-join secret `whilly worker register` presents.
 * - `WHILLY_WORKER_TOKEN` (optional, deprecated, as long): a shared bearer for every worker;
 *   `WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1` silences its one-time warning.
 * - `WHILLY_TOKEN_SECRET` (optional, 32+ characters): signs worker bearers; without it the key is
 *   derived from the bootstrap token.
 * - `WHILLY_ADMIN_TOKEN` (optional, {@link MIN_WORKER_SECRET_LENGTH}+ characters, unlike the worker
 *   tokens): reads the read API and creates plans. `WHILLY_PUBLIC_READ=1` opens the read API to anyone.
 * - `WHILLY_OIDC_AUDIENCE`, `WHILLY_OIDC_REPOSITORIES`, `WHILLY_OIDC_JWKS_URL`, `WHILLY_OIDC_ISSUER`,
 *   `WHILLY_OIDC_JWKS_TIMEOUT` (optional): GitHub Actions workflows that may create plans for their own
 *   issues (see `readOidcSettings`).
 * - `WHILLY_SESSION_TTL` (s, default 43200 = 12 h, at most 7 days): how long a browser session
 *   (`POST /api/v1/session`) lasts before its holder signs in again.
 * - `WHILLY_VISIBILITY_TIMEOUT` (s, default 900, at most a day): a claim's lease, renewed by heartbeats.
 * - `WHILLY_HEARTBEAT_TIMEOUT` (s, default 120): silence after which a worker is offline.
 * - `WHILLY_SWEEP_INTERVAL` (s, default 15): pause between lease and worker sweeps.
 * - `WHILLY_CLAIM_TIMEOUT` (s, default 30, at most 30): how long a claim waits before 204.
 * - `WHILLY_CLAIM_RECHECK` (s, default 5): how often a plan's parked claims re-check the database when
 *   no signal came; longer than the claim timeout means never within one wait.
 * - `WHILLY_EVENT_FLUSH_MS` (ms, default 100, at most 60000): the event buffer's flush delay.
 * - `WHILLY_EVENTS_KEEPALIVE` (s, default 15), `WHILLY_EVENTS_POLL` (s, default 1),
 *   `WHILLY_EVENTS_MAX_QUEUED` (bytes, default 262144): the audit-event streams (see `readEventStreamConfig`).
 * - `WHILLY_RETRY_BACKOFF` (default 30s, 0 allowed) and `WHILLY_RETRY_BACKOFF_MAX` (default 10m, not
 *   below it): a failed attempt's retry waits the first after attempt 1, doubling per attempt up to the
 *   second (docs/retries.md). Bare numbers are seconds; `1500ms`, `90s`, `30m`, `1h` also work.
 *
 * Seconds may be fractional, so tests can use short leases. Every duration is read by
 * {@link readDuration}: at least 1 ms and at most what a timer holds (about 24.8 days) unless said
 * otherwise; the lease's ceiling is the one the store enforces ({@link MAX_LEASE_MS}), so a lease the store would
 * refuse at the first claim is refused at startup instead.
 */
export function readControlPlaneSettings(env: StringEnv, problems: SettingsProblem[]): ControlPlaneSettings {
  const duration = (name: string, fallbackMs: number, unitMs: 1 | 1000, maxMs?: number) =>
    readDuration(env, name, { fallbackMs, unitMs, maxMs }, problems);
  const bootstrapToken = env.WHILLY_WORKER_BOOTSTRAP_TOKEN?.trim() ?? "";
  const legacyToken = env.WHILLY_WORKER_TOKEN?.trim() || undefined;
  // A short secret's message already says how to make one (the HTTP layer shows it alone too), so its
  // hint says what else to do; an unset one's hint says both.
  const secretHint = (name: string, secret: string | undefined) =>
    !secret
      ? `set ${name} to a long random secret (${STRONG_SECRET_HOWTO}) and give it to whoever registers workers`
      : name === "WHILLY_WORKER_TOKEN"
        ? "WHILLY_WORKER_TOKEN is deprecated: unset it and give each worker its own (whilly worker register)"
        : name === "WHILLY_ADMIN_TOKEN"
          ? "give the new value to whoever reads the read API, or unset it and mint read tokens (whilly token create --read-only)"
          : "give the new value to whoever registers workers (whilly worker register --bootstrap-token)";
  const adminToken = env.WHILLY_ADMIN_TOKEN?.trim() || undefined;
  for (const [name, secret] of [
    ["WHILLY_WORKER_BOOTSTRAP_TOKEN", bootstrapToken],
    ["WHILLY_WORKER_TOKEN", legacyToken],
    ["WHILLY_ADMIN_TOKEN", adminToken],
  ] as const) {
    if (name !== "WHILLY_WORKER_BOOTSTRAP_TOKEN" && secret === undefined) continue;
    const problem = workerSecretProblem(name, secret ?? "");
    if (problem !== undefined) problems.push({ message: problem, hint: secretHint(name, secret) });
  }
  if (adminToken !== undefined && (adminToken === bootstrapToken || adminToken === legacyToken)) {
    problems.push({
      message: "WHILLY_ADMIN_TOKEN must differ from WHILLY_WORKER_BOOTSTRAP_TOKEN and WHILLY_WORKER_TOKEN",
      hint: `give the read API its own secret (${STRONG_SECRET_HOWTO})`,
    });
  }
  const publicRead = env.WHILLY_PUBLIC_READ?.trim() ?? "";
  if (publicRead !== "" && publicRead !== "0" && publicRead !== "1") {
    problems.push({
      message: `WHILLY_PUBLIC_READ must be 1 (anyone may read the read API) or 0; got '${publicRead}'`,
      hint: "unset it to require the admin token or a read token (whilly token create --read-only)",
    });
  }
  const signingSecret = env.WHILLY_TOKEN_SECRET?.trim() || undefined;
  if (signingSecret !== undefined && signingSecret.length < MIN_SIGNING_SECRET_LENGTH) {
    problems.push({
      message: `WHILLY_TOKEN_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters long`,
      hint: `${STRONG_SECRET_HOWTO}, or unset it to derive the key from the bootstrap token`,
    });
  }
  const app = {
    leaseMs: duration("WHILLY_VISIBILITY_TIMEOUT", DEFAULT_LEASE_MS, 1000, MAX_LEASE_MS),
    claimWaitMs: duration("WHILLY_CLAIM_TIMEOUT", MAX_CLAIM_WAIT_MS, 1000, MAX_CLAIM_WAIT_MS),
    claimRecheckMs: duration("WHILLY_CLAIM_RECHECK", 5000, 1000),
    retryBackoff: readRetryBackoff(env, problems),
    events: readEventStreamConfig(env, problems),
  };
  const heartbeatTimeoutMs = duration("WHILLY_HEARTBEAT_TIMEOUT", DEFAULT_HEARTBEAT_TIMEOUT_MS, 1000);
  return {
    app: { ...app, heartbeatTimeoutMs },
    heartbeatTimeoutMs,
    sweepIntervalMs: duration("WHILLY_SWEEP_INTERVAL", 15_000, 1000),
    eventFlushMs: duration("WHILLY_EVENT_FLUSH_MS", 100, 1, 60_000),
    auth: {
      bootstrapToken,
      legacyToken,
      signingSecret,
      suppressLegacyWarning: env.WHILLY_SUPPRESS_WORKER_TOKEN_WARNING?.trim() === "1",
      adminToken,
      publicRead: publicRead === "1",
      oidc: readOidcSettings(env, problems),
      sessionTtlMs: duration("WHILLY_SESSION_TTL", DEFAULT_SESSION_TTL_MS, 1000, MAX_SESSION_TTL_MS),
    },
    secrets: [
      ...new Set(
        [bootstrapToken, legacyToken, adminToken, signingSecret]
          .filter((s): s is string => s !== undefined && s !== "")
          .concat(secretValuesOf(env)),
      ),
    ],
  };
}

/** `WHILLY_RETRY_BACKOFF` and `WHILLY_RETRY_BACKOFF_MAX`, the cap at least the base. */
function readRetryBackoff(env: StringEnv, problems: SettingsProblem[]): RetryBackoff {
  const read = (name: string, fallbackMs: number) =>
    readDuration(env, name, { fallbackMs, unitMs: 1000, minMs: 0, units: true }, problems);
  const baseMs = read("WHILLY_RETRY_BACKOFF", DEFAULT_RETRY_BACKOFF_MS);
  const capMs = read("WHILLY_RETRY_BACKOFF_MAX", Math.max(DEFAULT_RETRY_BACKOFF_MAX_MS, baseMs));
  if (capMs < baseMs) {
    problems.push({
      message: `WHILLY_RETRY_BACKOFF_MAX (${capMs} ms) is below WHILLY_RETRY_BACKOFF (${baseMs} ms)`,
      hint: "raise WHILLY_RETRY_BACKOFF_MAX, or unset it for the default (10m)",
    });
    return { baseMs, capMs: baseMs };
  }
  return { baseMs, capMs };
}

/**
 * @param extraHint advice for any problem of this host (where its settings are kept), after the
 *   problems' own hints.
 * @throws {ConfigurationError} naming every problem, with each distinct hint once, when there are any.
 */
export function throwProblems(
  problems: readonly SettingsProblem[],
  prefix: string,
  extraHint?: string,
): void {
  const error = settingsError(problems, { prefix, extraHint });
  if (error) throw error;
}
