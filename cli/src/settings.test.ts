import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseCliSettings } from "./settings.js";

describe("CLI settings", () => {
  it("defaults to the embedded store, a 900 s lease, 30 s heartbeats and 30 s progress lines", () => {
    expect(parseCliSettings({})).toEqual({
      databaseUrl: undefined,
      workerId: undefined,
      leaseMs: 900_000,
      heartbeatIntervalMs: 30_000,
      progressIntervalMs: 30_000,
      retryBackoffMs: 30_000,
      retryBackoffMaxMs: 600_000,
      limitBackoffMs: 60_000,
      limitBackoffMaxMs: 21_600_000,
      secrets: [],
      eventsPollMs: 1000,
      triz: { enabled: false, timeoutMs: 25_000 },
      dashboardRefreshMs: 1000,
      storeSocketWaitMs: 1000,
      storeHandOverWaitMs: 10_000,
      ui: { port: 0, signInTtlMs: 600_000 },
    });
  });

  it("reads run --ui's port and sign-in link lifetime, naming a bad port and its range", () => {
    const ui = parseCliSettings({ WHILLY_UI_PORT: " 8765 ", WHILLY_UI_SIGNIN_TTL: "90s" }).ui;
    expect(ui).toEqual({ port: 8765, signInTtlMs: 90_000 });
    for (const port of ["http", "-1", "65536", "80.5"]) {
      expect(() => parseCliSettings({ WHILLY_UI_PORT: port })).toThrow(/WHILLY_UI_PORT: .*0 to 65535/s);
    }
    expect(() => parseCliSettings({ WHILLY_UI_SIGNIN_TTL: "soon" })).toThrow(/WHILLY_UI_SIGNIN_TTL/);
  });

  it("reads the failure analysis's settings, naming a bad one among the others", () => {
    expect(parseCliSettings({ WHILLY_TRIZ_ENABLED: "true", WHILLY_TRIZ_TIMEOUT: "3s" }).triz).toEqual({
      enabled: true,
      timeoutMs: 3000,
    });
    expect(() => parseCliSettings({ WHILLY_TRIZ_ENABLED: "maybe", WHILLY_EVENTS_POLL: "never" })).toThrow(
      /WHILLY_EVENTS_POLL.*WHILLY_TRIZ_ENABLED must be/,
    );
  });

  it("reads the events poll in seconds and names a bad one", () => {
    expect(parseCliSettings({ WHILLY_EVENTS_POLL: "0.2" }).eventsPollMs).toBe(200);
    expect(() => parseCliSettings({ WHILLY_EVENTS_POLL: "never" })).toThrow(
      /WHILLY_EVENTS_POLL must be a positive number of seconds/,
    );
    expect(parseCliSettings({ WHILLY_DASHBOARD_REFRESH: "0.2" }).dashboardRefreshMs).toBe(200);
    expect(() => parseCliSettings({ WHILLY_DASHBOARD_REFRESH: "0" })).toThrow(
      /WHILLY_DASHBOARD_REFRESH must be/,
    );
  });

  it("keeps its cache in WHILLY_CACHE_DIR, else XDG_CACHE_HOME/whilly, else ~/.cache/whilly; off or no home: none", () => {
    expect(parseCliSettings({ HOME: "/home/u" }).cacheDir).toBe("/home/u/.cache/whilly");
    expect(parseCliSettings({ HOME: "/home/u", XDG_CACHE_HOME: "/var/c" }).cacheDir).toBe("/var/c/whilly");
    // A relative XDG_CACHE_HOME is invalid by its specification and ignored.
    expect(parseCliSettings({ HOME: "/home/u", XDG_CACHE_HOME: "c" }).cacheDir).toBe("/home/u/.cache/whilly");
    expect(parseCliSettings({ HOME: "/home/u", WHILLY_CACHE_DIR: "/tmp/wc" }).cacheDir).toBe("/tmp/wc");
    expect(parseCliSettings({ HOME: "/home/u", WHILLY_CACHE_DIR: "off" }).cacheDir).toBeUndefined();
    expect(parseCliSettings({}).cacheDir).toBeUndefined();
  });

  it("reads the retry and limit backoffs as durations with a unit, a bare number in seconds", () => {
    const s = parseCliSettings({
      WHILLY_RETRY_BACKOFF: "200ms",
      WHILLY_RETRY_BACKOFF_MAX: "1",
      WHILLY_LIMIT_BACKOFF: "2s",
      WHILLY_LIMIT_BACKOFF_MAX: "1m",
    });
    expect(s).toMatchObject({
      retryBackoffMs: 200,
      retryBackoffMaxMs: 1000,
      limitBackoffMs: 2000,
      limitBackoffMaxMs: 60_000,
    });
    expect(() => parseCliSettings({ WHILLY_LIMIT_BACKOFF: "soon" })).toThrow(
      /WHILLY_LIMIT_BACKOFF must be a duration like 90s/,
    );
  });

  it("lists the environment's secrets: the database URL's password, variables named as secrets", () => {
    const s = parseCliSettings({
      WHILLY_DATABASE_URL: "postgres://u:db-password-123@h/db",
      GH_TOKEN: "gh-token-value-1",
      SOME_FLAG: "1",
    });
    expect(s.secrets).toEqual(expect.arrayContaining(["db-password-123", "gh-token-value-1"]));
    expect(s.secrets).not.toContain("1");
  });

  it("reads WHILLY_PROGRESS_INTERVAL in seconds and refuses what is not one", () => {
    expect(parseCliSettings({ WHILLY_PROGRESS_INTERVAL: "0.05" }).progressIntervalMs).toBe(50);
    expect(() => parseCliSettings({ WHILLY_PROGRESS_INTERVAL: "30s" })).toThrow(
      new ConfigurationError(
        "WHILLY_PROGRESS_INTERVAL must be a positive number of seconds up to 2147483.647; got '30s'",
        { hint: "e.g. WHILLY_PROGRESS_INTERVAL=30 (the default), or unset it" },
      ),
    );
  });

  it("accepts whilly 4.x's +asyncpg URLs and strips the suffix", () => {
    const s = parseCliSettings({ WHILLY_DATABASE_URL: "postgresql+asyncpg://u@h:5432/db" });
    expect(s.databaseUrl).toBe("postgresql://u@h:5432/db");
  });

  it("names the variable and the fix for bad values", () => {
    expect(() => parseCliSettings({ WHILLY_DATABASE_URL: "mysql://x" })).toThrow(
      /WHILLY_DATABASE_URL must start with postgres/,
    );
    expect(() => parseCliSettings({ WHILLY_VISIBILITY_TIMEOUT: "soon" })).toThrow(ConfigurationError);
    expect(() =>
      parseCliSettings({ WHILLY_VISIBILITY_TIMEOUT: "10", WHILLY_HEARTBEAT_INTERVAL: "30" }),
    ).toThrow(/must be shorter than WHILLY_VISIBILITY_TIMEOUT/);
  });

  it("reads durations as the control plane does, bounding the lease by the store's longest", () => {
    expect(
      parseCliSettings({ WHILLY_VISIBILITY_TIMEOUT: "86400", WHILLY_HEARTBEAT_INTERVAL: "0.25" }),
    ).toMatchObject({
      leaseMs: 86_400_000,
      heartbeatIntervalMs: 250,
    });
    const cases: [Record<string, string>, string][] = [
      [
        { WHILLY_VISIBILITY_TIMEOUT: "86401" },
        "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got '86401'",
      ],
      [
        { WHILLY_VISIBILITY_TIMEOUT: "1e3" },
        "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got '1e3'",
      ],
      [
        { WHILLY_VISIBILITY_TIMEOUT: "0x10" },
        "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got '0x10'",
      ],
      [
        { WHILLY_VISIBILITY_TIMEOUT: "0.0001" },
        "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400, at least 0.001; got '0.0001'",
      ],
      [
        { WHILLY_HEARTBEAT_INTERVAL: "Infinity" },
        "WHILLY_HEARTBEAT_INTERVAL must be a positive number of seconds up to 2147483.647; got 'Infinity'",
      ],
      [
        { WHILLY_VISIBILITY_TIMEOUT: "-5", WHILLY_HEARTBEAT_INTERVAL: "abc" },
        "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got '-5'; WHILLY_HEARTBEAT_INTERVAL must be a positive number of seconds up to 2147483.647; got 'abc'",
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => parseCliSettings(env)).toThrow(message);
    }
  });

  it("hints at the fix of each problem, once each", () => {
    const error = (env: Record<string, string>) => {
      try {
        parseCliSettings(env);
      } catch (caught) {
        return caught as ConfigurationError;
      }
      throw new Error("expected a ConfigurationError");
    };
    expect(error({ WHILLY_VISIBILITY_TIMEOUT: "abc" }).hint).toBe(
      "e.g. WHILLY_VISIBILITY_TIMEOUT=900 (the default), or unset it",
    );
    expect(error({ WHILLY_DATABASE_URL: "mysql://x", WHILLY_HEARTBEAT_INTERVAL: "x" }).hint).toBe(
      "e.g. postgres://user@host:5432/whilly, or unset it to use the embedded store in .whilly/; " +
        "e.g. WHILLY_HEARTBEAT_INTERVAL=30 (the default), or unset it",
    );
    expect(error({ WHILLY_HEARTBEAT_INTERVAL: "900" }).hint).toBe(
      "lower WHILLY_HEARTBEAT_INTERVAL (default 30) or raise WHILLY_VISIBILITY_TIMEOUT (default 900)",
    );
  });
});
