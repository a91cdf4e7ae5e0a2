import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../worker-api/src/cloudflare/entry-workers.js";
import { parseWorkersSettings } from "../../worker-api/src/cloudflare/settings.js";

const minimal = {
  WHILLY_DATABASE_URL: "postgresql://app:secret@ep-example.neon.tech/whilly?sslmode=require",
  WHILLY_WORKER_BOOTSTRAP_TOKEN: "join-secret-0123456789",
};

describe("the Worker's settings", () => {
  it("reads the secrets and applies the documented defaults (seconds turned into ms)", () => {
    const settings = parseWorkersSettings({ ...minimal, COORDINATOR: {}, UNRELATED: 42 });
    expect(settings).toEqual({
      database: { url: minimal.WHILLY_DATABASE_URL, wsProxy: undefined },
      app: {
        leaseMs: 900_000,
        claimWaitMs: 30_000,
        claimRecheckMs: 5_000,
        retryBackoff: { baseMs: 30_000, capMs: 600_000 },
        heartbeatTimeoutMs: 120_000,
        events: { keepAliveMs: 15_000, pollMs: 1000, maxQueuedBytes: 262_144, replayLimit: 1000 },
      },
      heartbeatTimeoutMs: 120_000,
      sweepIntervalMs: 15_000,
      eventFlushMs: 100,
      eventSubrequests: 900,
      auth: {
        bootstrapToken: "join-secret-0123456789",
        legacyToken: undefined,
        signingSecret: undefined,
        suppressLegacyWarning: false,
        adminToken: undefined,
        publicRead: false,
        sessionTtlMs: 43_200_000,
      },
      secrets: expect.arrayContaining(["join-secret-0123456789"]),
    });
  });

  it("reads the read API's admin token, refuses a short one, and hides it as a secret", () => {
    const settings = parseWorkersSettings({ ...minimal, WHILLY_ADMIN_TOKEN: "admin-0123456789abcdef" });
    expect(settings.auth.adminToken).toBe("admin-0123456789abcdef");
    expect(settings.secrets).toEqual(expect.arrayContaining(["admin-0123456789abcdef"]));
    expect(() => parseWorkersSettings({ ...minimal, WHILLY_ADMIN_TOKEN: "short" })).toThrow(
      "WHILLY_ADMIN_TOKEN is too short",
    );
  });

  it("takes fractional seconds, the proxy and the legacy token switches", () => {
    const settings = parseWorkersSettings({
      ...minimal,
      WHILLY_VISIBILITY_TIMEOUT: "1.5",
      WHILLY_CLAIM_TIMEOUT: "0.25",
      WHILLY_NEON_WS_PROXY: "127.0.0.1:5433",
      WHILLY_WORKER_TOKEN: " shared-0123456789abcdef ",
      WHILLY_SUPPRESS_WORKER_TOKEN_WARNING: "1",
      WHILLY_EVENTS_SUBREQUESTS: "40",
    });
    expect(settings.app.leaseMs).toBe(1500);
    expect(settings.eventSubrequests).toBe(40);
    expect(settings.app.claimWaitMs).toBe(250);
    expect(settings.database.wsProxy).toBe("127.0.0.1:5433");
    expect(settings.auth).toMatchObject({
      legacyToken: "shared-0123456789abcdef",
      suppressLegacyWarning: true,
    });
  });

  it("names every bad variable at once", () => {
    const parse = () =>
      parseWorkersSettings({
        WHILLY_DATABASE_URL: "mysql://nope",
        WHILLY_CLAIM_TIMEOUT: "45",
        WHILLY_HEARTBEAT_TIMEOUT: "soon",
        WHILLY_TOKEN_SECRET: "short",
        WHILLY_WORKER_TOKEN: "weak",
        WHILLY_NEON_WS_PROXY: "ws://127.0.0.1:5433",
        WHILLY_EVENTS_SUBREQUESTS: "5",
      });
    expect(parse).toThrow(/WHILLY_DATABASE_URL must start with postgres/);
    expect(parse).toThrow(/WHILLY_WORKER_BOOTSTRAP_TOKEN is not set/);
    expect(parse).toThrow(/WHILLY_CLAIM_TIMEOUT must be a positive number of seconds up to 30/);
    expect(parse).toThrow(/WHILLY_HEARTBEAT_TIMEOUT must be a positive number/);
    expect(parse).toThrow(/WHILLY_TOKEN_SECRET must be at least 32 characters/);
    expect(parse).toThrow(/WHILLY_WORKER_TOKEN is too short \(4 characters\); it must be at least 16/);
    expect(parse).toThrow(/WHILLY_NEON_WS_PROXY must be host:port/);
    expect(parse).toThrow(/WHILLY_EVENTS_SUBREQUESTS must be a whole number from 10 to 100000; got '5'/);
  });

  it("answers every request with a 500 bad_environment envelope naming the variable", async () => {
    const broken = { ...env, WHILLY_DATABASE_URL: "" };
    for (const path of ["/health", "/tasks/claim"]) {
      const response = await worker.fetch(
        new Request(`http://whilly.test${path}`),
        broken,
        createExecutionContext(),
      );
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        error_code: "bad_environment",
        detail: expect.stringContaining("WHILLY_DATABASE_URL is not set"),
        task_id: null,
      });
    }
  });
});
