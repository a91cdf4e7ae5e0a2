import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseWorkerArgs } from "../cli/args.js";
import { parseWorkerSettings } from "../cli/settings.js";
import { parseTrizSettings } from "./settings.js";

describe("the failure analysis's settings", () => {
  it("are off with a 25 s timeout by default; the timeout is seconds or a duration with a unit", () => {
    expect(parseTrizSettings({})).toEqual({ enabled: false, timeoutMs: 25_000 });
    expect(parseTrizSettings({ WHILLY_TRIZ_ENABLED: "1", WHILLY_TRIZ_TIMEOUT: "40" })).toEqual({
      enabled: true,
      timeoutMs: 40_000,
    });
    expect(parseTrizSettings({ WHILLY_TRIZ_ENABLED: "Yes", WHILLY_TRIZ_TIMEOUT: "1500ms" }).timeoutMs).toBe(
      1500,
    );
  });

  it("refuse a bad value naming the variable, in the worker's settings too", () => {
    expect(() => parseTrizSettings({ WHILLY_TRIZ_ENABLED: "on" })).toThrow(/WHILLY_TRIZ_ENABLED must be/);
    expect(() => parseTrizSettings({ WHILLY_TRIZ_TIMEOUT: "-1" })).toThrow(/WHILLY_TRIZ_TIMEOUT/);
    const env = { WHILLY_CONTROL_URL: "http://cp", WHILLY_WORKER_TOKEN: "t", WHILLY_PLAN_ID: "p" };
    const flags = parseWorkerArgs(["--worker-id", "w"]);
    expect(parseWorkerSettings(flags, { ...env, WHILLY_TRIZ_ENABLED: "1" }, "/tmp").triz.enabled).toBe(true);
    expect(() => parseWorkerSettings(flags, { ...env, WHILLY_TRIZ_TIMEOUT: "soon" }, "/tmp")).toThrow(
      ConfigurationError,
    );
  });
});
