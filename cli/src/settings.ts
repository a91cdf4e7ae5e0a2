import { isAbsolute, join, resolve } from "node:path";
import { parseTrizSettings, type TrizSettings } from "@whilly/agent";
import {
  ConfigurationError,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_LIMIT_BACKOFF_MAX_MS,
  DEFAULT_LIMIT_BACKOFF_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  DEFAULT_RETRY_BACKOFF_MAX_MS,
  DEFAULT_RETRY_BACKOFF_MS,
  MAX_LEASE_MS,
  readDuration,
  type SettingsProblem,
  secretValuesOf,
  settingsError,
} from "@whilly/core";
import { z } from "zod";

const databaseUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return undefined;
    // whilly 4.x accepted SQLAlchemy-style '+asyncpg' schemes; keep those URLs working.
    const url = raw.trim().replace(/^(postgres(?:ql)?)\+asyncpg:/, "$1:");
    if (!/^postgres(ql)?:\/\//.test(url)) {
      ctx.addIssue({
        code: "custom",
        message: "WHILLY_DATABASE_URL must start with postgres:// or postgresql://",
      });
      return z.NEVER;
    }
    return url;
  });

const schema = z.object({
  WHILLY_DATABASE_URL: databaseUrl,
  WHILLY_WORKER_ID: z.string().trim().min(1).max(256).optional(),
  WHILLY_UI_PORT: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a TCP port from 0 to 65535")
    .transform(Number)
    .pipe(z.number().max(65_535, "must be a TCP port from 0 to 65535"))
    .optional(),
  NO_COLOR: z.string().optional(),
});

/** What to do about a bad value of each variable the schema reads. */
const HINTS: Readonly<Record<string, string>> = {
  WHILLY_DATABASE_URL:
    "e.g. postgres://user@host:5432/whilly, or unset it to use the embedded store in .whilly/",
  WHILLY_WORKER_ID: "1 to 256 characters, or unset it for local-<hostname>-<pid>",
  WHILLY_UI_PORT: "a TCP port from 0 to 65535 (0: any free port), or unset it for 0",
};

/** The CLI's settings, read once from the environment at the entry point. Durations are ms. */
export type CliSettings = {
  /** A Postgres server to use instead of the embedded store; `undefined` means embedded PGlite in `.whilly/`. */
  readonly databaseUrl: string | undefined;
  /** Worker id for `whilly run`; default `local-<hostname>-<pid>`. */
  readonly workerId: string | undefined;
  /** Lease length of a claim (ms), renewed by heartbeats. From `WHILLY_VISIBILITY_TIMEOUT` (s), default 900 s. */
  readonly leaseMs: number;
  /** Heartbeat period (ms). From `WHILLY_HEARTBEAT_INTERVAL` (s), default 30 s. */
  readonly heartbeatIntervalMs: number;
  /**
   * How often `whilly run` says a task is still running (ms). From `WHILLY_PROGRESS_INTERVAL` (s),
   * default {@link DEFAULT_PROGRESS_INTERVAL_MS}.
   */
  readonly progressIntervalMs: number;
  /**
   * The pause before a failed task's first retry (ms), doubled per attempt up to
   * {@link CliSettings.retryBackoffMaxMs}. From `WHILLY_RETRY_BACKOFF`, default 30 s.
   */
  readonly retryBackoffMs: number;
  /** The longest pause before a retry (ms). From `WHILLY_RETRY_BACKOFF_MAX`, default 10 min. */
  readonly retryBackoffMaxMs: number;
  /**
   * How long claims stop after a provider limit that named no reset time (ms), doubled per limit in a
   * row. From `WHILLY_LIMIT_BACKOFF`, default 60 s.
   */
  readonly limitBackoffMs: number;
  /** The longest pause after a provider limit (ms), reset time or not. From `WHILLY_LIMIT_BACKOFF_MAX`, default 6 h. */
  readonly limitBackoffMaxMs: number;
  /**
   * Values hidden in everything `whilly run` keeps or prints of an agent's output and of errors: the
   * environment's secrets ({@link secretValuesOf}: variables named KEY, TOKEN, SECRET or PASSWORD, URL
   * passwords such as the database URL's).
   */
  readonly secrets: readonly string[];
  /**
   * Where whilly keeps what it can rebuild (a migrated empty embedded store that new ones start from):
   * `WHILLY_CACHE_DIR`, else `$XDG_CACHE_HOME/whilly`, else `~/.cache/whilly`; `undefined` with
   * `WHILLY_CACHE_DIR=off` or no home directory (nothing is cached).
   */
  readonly cacheDir: string | undefined;
  /**
   * How long `whilly events --follow` waits without a signal before it reads again (ms): after a lost
   * notification, and on `--connect` before reconnecting. From `WHILLY_EVENTS_POLL` (s), default 1 s.
   */
  readonly eventsPollMs: number;
  /** `whilly run`'s failure analysis after a FAIL: `WHILLY_TRIZ_ENABLED`, `WHILLY_TRIZ_TIMEOUT` (docs/triz.md). */
  readonly triz: TrizSettings;
  /** How often `whilly dashboard` reads the plan again and redraws (ms). From `WHILLY_DASHBOARD_REFRESH` (s), default 1 s. */
  readonly dashboardRefreshMs: number;
  /**
   * How long a command that finds the embedded store locked by a live process of this host waits for
   * that process's local socket before it gives up with `StoreLocked` (ms): the owner binds it right
   * after taking the lock. From `WHILLY_STORE_SOCKET_WAIT` (s), default 1 s.
   */
  readonly storeSocketWaitMs: number;
  /**
   * How long a command that must own the embedded store (`whilly run`, `whilly server`) waits for a
   * yielding owner (`whilly dashboard`, `whilly events -f`, ...) to hand it over, and how long that
   * owner then waits for the new owner's socket (ms). From `WHILLY_STORE_HANDOVER_WAIT` (s), default 10 s.
   */
  readonly storeHandOverWaitMs: number;
  /** `whilly run --ui` (docs/web-dashboard.md). */
  readonly ui: {
    /**
     * The dashboard's port when `--port` is not given. From `WHILLY_UI_PORT`, default 0: any free port,
     * since several runs (and a `whilly server` on 8000) may share a machine, and the link is printed.
     */
    readonly port: number;
    /** How long the printed sign-in link stays good (ms). From `WHILLY_UI_SIGNIN_TTL`, default 10 min. */
    readonly signInTtlMs: number;
  };
};

/**
 * Validates the environment: `WHILLY_DATABASE_URL`, `WHILLY_WORKER_ID` (1 to 256 characters),
 * `WHILLY_VISIBILITY_TIMEOUT` (seconds, 0.001 up to the store's longest lease, a day) and
 * `WHILLY_HEARTBEAT_INTERVAL` (seconds, shorter than the lease) and `WHILLY_PROGRESS_INTERVAL` (seconds
 * between "still running" lines of `whilly run`); the retry and limit backoffs `WHILLY_RETRY_BACKOFF`,
 * `WHILLY_RETRY_BACKOFF_MAX`, `WHILLY_LIMIT_BACKOFF`, `WHILLY_LIMIT_BACKOFF_MAX` (`500ms`, `30s`, `10m`;
 * a bare number is seconds); `WHILLY_CACHE_DIR` (a directory, or `off`); `WHILLY_EVENTS_POLL` (seconds,
 * default 1, at most an hour) and `WHILLY_DASHBOARD_REFRESH` (seconds, the same); `WHILLY_STORE_SOCKET_WAIT` (seconds, default 1, at most 60) and `WHILLY_STORE_HANDOVER_WAIT` (seconds, default 10, at most 60); `WHILLY_UI_PORT` (0 to 65535) and `WHILLY_UI_SIGNIN_TTL` (`10m`). Durations are read as the control
 * plane reads its own, so both refuse the same values.
 * @throws {ConfigurationError} naming every bad variable, its allowed range and what was given.
 */
export function parseCliSettings(env: Readonly<Record<string, string | undefined>>): CliSettings {
  const problems: SettingsProblem[] = [];
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map((i) => ({
        message: i.code === "custom" ? i.message : `${i.path.join(".")}: ${i.message}`,
        hint: HINTS[String(i.path[0])] ?? "unset it to use the default",
      })),
    );
  }
  const seconds = (name: string, fallbackMs: number, maxMs?: number) =>
    readDuration(env, name, { fallbackMs, unitMs: 1000, maxMs }, problems);
  const leaseMs = seconds("WHILLY_VISIBILITY_TIMEOUT", DEFAULT_LEASE_MS, MAX_LEASE_MS);
  const heartbeatIntervalMs = seconds("WHILLY_HEARTBEAT_INTERVAL", DEFAULT_HEARTBEAT_INTERVAL_MS);
  const progressIntervalMs = seconds("WHILLY_PROGRESS_INTERVAL", DEFAULT_PROGRESS_INTERVAL_MS);
  const eventsPollMs = seconds("WHILLY_EVENTS_POLL", 1000, 3_600_000);
  const dashboardRefreshMs = seconds("WHILLY_DASHBOARD_REFRESH", 1000, 3_600_000);
  const storeSocketWaitMs = seconds("WHILLY_STORE_SOCKET_WAIT", 1000, 60_000);
  const storeHandOverWaitMs = seconds("WHILLY_STORE_HANDOVER_WAIT", 10_000, 60_000);
  const duration = (name: string, fallbackMs: number, minMs: 0 | 1 = 1) =>
    readDuration(env, name, { fallbackMs, unitMs: 1000, units: true, minMs }, problems);
  // A retry may come at once (0); a provider limit always pauses a little.
  const retryBackoffMs = duration("WHILLY_RETRY_BACKOFF", DEFAULT_RETRY_BACKOFF_MS, 0);
  const retryBackoffMaxMs = duration("WHILLY_RETRY_BACKOFF_MAX", DEFAULT_RETRY_BACKOFF_MAX_MS, 0);
  const limitBackoffMs = duration("WHILLY_LIMIT_BACKOFF", DEFAULT_LIMIT_BACKOFF_MS);
  const signInTtlMs = duration("WHILLY_UI_SIGNIN_TTL", 600_000);
  const limitBackoffMaxMs = duration("WHILLY_LIMIT_BACKOFF_MAX", DEFAULT_LIMIT_BACKOFF_MAX_MS);
  const triz = trizOf(env, problems);
  if (problems.length === 0 && heartbeatIntervalMs >= leaseMs) {
    problems.push({
      message: `WHILLY_HEARTBEAT_INTERVAL (${heartbeatIntervalMs / 1000} s) must be shorter than WHILLY_VISIBILITY_TIMEOUT (${leaseMs / 1000} s), or leases expire between heartbeats`,
      hint: `lower WHILLY_HEARTBEAT_INTERVAL (default ${DEFAULT_HEARTBEAT_INTERVAL_MS / 1000}) or raise WHILLY_VISIBILITY_TIMEOUT (default ${DEFAULT_LEASE_MS / 1000})`,
    });
  }
  const error = settingsError(problems);
  if (error || !parsed.success) throw error;
  const s = parsed.data;
  return {
    databaseUrl: s.WHILLY_DATABASE_URL,
    workerId: s.WHILLY_WORKER_ID,
    leaseMs,
    heartbeatIntervalMs,
    progressIntervalMs,
    retryBackoffMs,
    retryBackoffMaxMs: Math.max(retryBackoffMaxMs, retryBackoffMs),
    limitBackoffMs,
    limitBackoffMaxMs: Math.max(limitBackoffMaxMs, limitBackoffMs),
    secrets: secretValuesOf(env),
    cacheDir: cacheDirOf(env),
    eventsPollMs,
    triz,
    dashboardRefreshMs,
    storeSocketWaitMs,
    storeHandOverWaitMs,
    ui: { port: s.WHILLY_UI_PORT ?? 0, signInTtlMs },
  };
}

/** {@link parseTrizSettings}, its error kept with the others. */
function trizOf(
  env: Readonly<Record<string, string | undefined>>,
  problems: SettingsProblem[],
): TrizSettings {
  try {
    return parseTrizSettings(env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    problems.push({ message: error.message, hint: error.hint ?? "unset it to use the default" });
    return { enabled: false, timeoutMs: 0 };
  }
}

function cacheDirOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const chosen = env.WHILLY_CACHE_DIR?.trim();
  if (chosen === "off") return undefined;
  if (chosen) return resolve(chosen);
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, "whilly");
  const home = env.HOME?.trim();
  return home && isAbsolute(home) ? join(home, ".cache", "whilly") : undefined;
}
