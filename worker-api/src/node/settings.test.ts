import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseServerSettings } from "./settings.js";

const BOOT = "bootstrap-0123456789abcdef";
const SHARED = "shared-0123456789abcdef";

describe("parseServerSettings", () => {
  it("uses the documented defaults", () => {
    const settings = parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: ` ${BOOT} ` });
    expect(settings).toEqual({
      app: {
        leaseMs: 900_000,
        claimWaitMs: 30_000,
        claimRecheckMs: 5000,
        retryBackoff: { baseMs: 30_000, capMs: 600_000 },
        heartbeatTimeoutMs: 120_000,
        events: { keepAliveMs: 15_000, pollMs: 1000, maxQueuedBytes: 262_144, replayLimit: 1000 },
      },
      heartbeatTimeoutMs: 120_000,
      sweepIntervalMs: 15_000,
      eventFlushMs: 100,
      auth: {
        bootstrapToken: BOOT,
        legacyToken: undefined,
        signingSecret: undefined,
        suppressLegacyWarning: false,
        adminToken: undefined,
        publicRead: false,
        sessionTtlMs: 43_200_000,
      },
      secrets: [BOOT],
    });
  });

  it("refuses a WHILLY_WEB_DIR that is a file, naming the variable and the fix", () => {
    const file = fileURLToPath(import.meta.url);
    for (const webDir of [file, join(file, "dist")]) {
      let error: unknown;
      try {
        parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, WHILLY_WEB_DIR: webDir });
      } catch (caught) {
        error = caught;
      }
      expect(error, webDir).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).message).toContain(`WHILLY_WEB_DIR must be a directory`);
      expect((error as ConfigurationError).message).toContain(webDir);
      expect((error as ConfigurationError).hint).toContain("web/dist");
    }
    // A directory that does not exist (yet) is no error: `/` answers 503 saying how to build it.
    const missing = join(dirname(file), "no-such-web-dir");
    expect(parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, WHILLY_WEB_DIR: missing }).webDir).toBe(
      missing,
    );
  });

  it("reads WHILLY_SESSION_TTL in seconds, and refuses one beyond 7 days naming the variable", () => {
    const settings = parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, WHILLY_SESSION_TTL: "3600" });
    expect(settings.auth.sessionTtlMs).toBe(3_600_000);
    expect(() =>
      parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, WHILLY_SESSION_TTL: "604801" }),
    ).toThrow(/WHILLY_SESSION_TTL/);
  });

  it("reads the read API's admin token and public switch, and lists every secret it knows", () => {
    const admin = "admin-token-for-the-read-api";
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT,
      WHILLY_ADMIN_TOKEN: admin,
      WHILLY_PUBLIC_READ: "1",
      WHILLY_DATABASE_URL: "postgres://whilly:db-password-123@db/whilly",
    });
    expect(settings.auth).toMatchObject({ adminToken: admin, publicRead: true });
    expect(settings.secrets).toEqual(expect.arrayContaining([BOOT, admin, "db-password-123"]));
    for (const [env, message] of [
      [{ WHILLY_ADMIN_TOKEN: "short" }, "WHILLY_ADMIN_TOKEN is too short (5 characters)"],
      [{ WHILLY_ADMIN_TOKEN: BOOT }, "WHILLY_ADMIN_TOKEN must differ from WHILLY_WORKER_BOOTSTRAP_TOKEN"],
      [
        { WHILLY_PUBLIC_READ: "yes" },
        "WHILLY_PUBLIC_READ must be 1 (anyone may read the read API) or 0; got 'yes'",
      ],
    ] as const) {
      expect(() => parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, ...env })).toThrow(message);
    }
  });

  it("reads fractional seconds, so tests can use short leases", () => {
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT,
      WHILLY_VISIBILITY_TIMEOUT: "1.5",
      WHILLY_HEARTBEAT_TIMEOUT: "0.5",
      WHILLY_SWEEP_INTERVAL: "0.1",
      WHILLY_CLAIM_TIMEOUT: "2",
      WHILLY_CLAIM_RECHECK: "0.25",
      WHILLY_EVENT_FLUSH_MS: "20",
      WHILLY_WORKER_TOKEN: SHARED,
      WHILLY_SUPPRESS_WORKER_TOKEN_WARNING: "1",
    });
    expect(settings.app).toMatchObject({ leaseMs: 1500, claimWaitMs: 2000, claimRecheckMs: 250 });
    expect([settings.heartbeatTimeoutMs, settings.sweepIntervalMs, settings.eventFlushMs]).toEqual([
      500, 100, 20,
    ]);
    expect(settings.auth).toMatchObject({ legacyToken: SHARED, suppressLegacyWarning: true });
  });

  it("reads the event stream's keep-alive, poll and per-client queue, and names a bad one", () => {
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT,
      WHILLY_EVENTS_KEEPALIVE: "0.05",
      WHILLY_EVENTS_POLL: "0.2",
      WHILLY_EVENTS_MAX_QUEUED: "4096",
    });
    expect(settings.app.events).toEqual({
      keepAliveMs: 50,
      pollMs: 200,
      maxQueuedBytes: 4096,
      replayLimit: 1000,
    });
    expect(() =>
      parseServerSettings({
        WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT,
        WHILLY_EVENTS_KEEPALIVE: "soon",
        WHILLY_EVENTS_MAX_QUEUED: "12",
      }),
    ).toThrow(
      /WHILLY_EVENTS_KEEPALIVE must be a positive number of seconds.*WHILLY_EVENTS_MAX_QUEUED must be a whole number of bytes from 1024/s,
    );
  });

  it("reads the retry backoff with units, 0 allowed, and refuses a cap below the base", () => {
    const read = (env: Record<string, string>) =>
      parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, ...env }).app.retryBackoff;
    expect(read({ WHILLY_RETRY_BACKOFF: "0", WHILLY_RETRY_BACKOFF_MAX: "0" })).toEqual({
      baseMs: 0,
      capMs: 0,
    });
    expect(read({ WHILLY_RETRY_BACKOFF: "250ms", WHILLY_RETRY_BACKOFF_MAX: "2" })).toEqual({
      baseMs: 250,
      capMs: 2000,
    });
    // A base above the default cap raises the default cap with it.
    expect(read({ WHILLY_RETRY_BACKOFF: "1h" })).toEqual({ baseMs: 3_600_000, capMs: 3_600_000 });
    expect(() => read({ WHILLY_RETRY_BACKOFF: "1m", WHILLY_RETRY_BACKOFF_MAX: "30s" })).toThrow(
      "WHILLY_RETRY_BACKOFF_MAX (30000 ms) is below WHILLY_RETRY_BACKOFF (60000 ms)",
    );
    expect(() => read({ WHILLY_RETRY_BACKOFF: "soon" })).toThrow("WHILLY_RETRY_BACKOFF must be a duration");
  });

  it("names every missing or bad variable at once", () => {
    let caught: unknown;
    try {
      parseServerSettings({ WHILLY_VISIBILITY_TIMEOUT: "soon", WHILLY_CLAIM_TIMEOUT: "31" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    const message = (caught as Error).message;
    expect(message).toContain("WHILLY_WORKER_BOOTSTRAP_TOKEN is not set");
    expect(message).toContain(
      "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got 'soon'",
    );
    expect(message).toContain("WHILLY_CLAIM_TIMEOUT must be a positive number of seconds up to 30; got '31'");
  });

  it("bounds every duration by what its user can hold: the store's lease, the claim wait, a timer", () => {
    const problems = (env: Record<string, string>) => {
      try {
        parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as Error).message.split(/; (?=WHILLY_)/);
      }
      return [];
    };
    expect(
      problems({
        WHILLY_VISIBILITY_TIMEOUT: "86401",
        WHILLY_HEARTBEAT_TIMEOUT: "2147484",
        WHILLY_SWEEP_INTERVAL: "1e9",
        WHILLY_CLAIM_RECHECK: "0.0004",
        WHILLY_EVENT_FLUSH_MS: "60001",
        WHILLY_CLAIM_TIMEOUT: " 0x1e ",
      }),
    ).toEqual([
      "WHILLY_VISIBILITY_TIMEOUT must be a positive number of seconds up to 86400; got '86401'",
      "WHILLY_CLAIM_TIMEOUT must be a positive number of seconds up to 30; got '0x1e'",
      "WHILLY_CLAIM_RECHECK must be a positive number of seconds up to 2147483.647, at least 0.001; got '0.0004'",
      "WHILLY_HEARTBEAT_TIMEOUT must be a positive number of seconds up to 2147483.647; got '2147484'",
      "WHILLY_SWEEP_INTERVAL must be a positive number of seconds up to 2147483.647; got '1e9'",
      "WHILLY_EVENT_FLUSH_MS must be a positive number of milliseconds up to 60000; got '60001'",
    ]);
    expect(problems({ WHILLY_VISIBILITY_TIMEOUT: "86400", WHILLY_SWEEP_INTERVAL: "2147483.647" })).toEqual(
      [],
    );
  });

  it("refuses bootstrap and shared worker tokens shorter than 16 characters, naming the variable", () => {
    const message = (env: Record<string, string>) => {
      try {
        parseServerSettings(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        const { message, hint = "" } = error as ConfigurationError;
        // How to make a secret is said once, in the message, however many secrets are short.
        expect(`${message} ${hint}`.split("openssl rand -hex 32").length - 1).toBe(
          message.split(/; (?=WHILLY_)/).length,
        );
        expect(hint).not.toContain("openssl");
        return message;
      }
      return "";
    };
    expect(message({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "a" })).toBe(
      "WHILLY_WORKER_BOOTSTRAP_TOKEN is too short (1 character); it must be at least 16 random characters, make one with: openssl rand -hex 32",
    );
    expect(
      message({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "fifteen-chars!!", WHILLY_WORKER_TOKEN: " shared " }),
    ).toBe(
      "WHILLY_WORKER_BOOTSTRAP_TOKEN is too short (15 characters); it must be at least 16 random characters, make one with: openssl rand -hex 32; " +
        "WHILLY_WORKER_TOKEN is too short (6 characters); it must be at least 16 random characters, make one with: openssl rand -hex 32",
    );
    expect(message({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "sixteen-chars!!!" })).toBe("");
  });

  it("hints at the fix of each problem, once each, never the advice of a problem that is not there", () => {
    const hint = (env: Record<string, string>) => {
      try {
        parseServerSettings(env);
      } catch (error) {
        return (error as ConfigurationError).hint;
      }
      return undefined;
    };
    expect(hint({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOT, WHILLY_VISIBILITY_TIMEOUT: "abc" })).toBe(
      "e.g. WHILLY_VISIBILITY_TIMEOUT=900 (the default), or unset it",
    );
    expect(hint({ WHILLY_CLAIM_TIMEOUT: "x", WHILLY_EVENT_FLUSH_MS: "y" })).toBe(
      "set WHILLY_WORKER_BOOTSTRAP_TOKEN to a long random secret (make one with: openssl rand -hex 32) and give it to whoever registers workers; " +
        "e.g. WHILLY_CLAIM_TIMEOUT=30 (the default), or unset it; e.g. WHILLY_EVENT_FLUSH_MS=100 (the default), or unset it",
    );
  });
});
