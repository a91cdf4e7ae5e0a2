import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseCliSettings } from "./settings.js";

describe("CLI settings", () => {
  it("defaults to the embedded store, a 900 s lease and 30 s heartbeats", () => {
    expect(parseCliSettings({})).toEqual({
      databaseUrl: undefined,
      workerId: undefined,
      leaseMs: 900_000,
      heartbeatIntervalMs: 30_000,
    });
  });

  it("accepts the seed's +asyncpg URLs and strips the suffix", () => {
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
});
