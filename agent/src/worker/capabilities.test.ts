import { describe, expect, it } from "vitest";
import { createCapabilities } from "./capabilities.js";

describe("createCapabilities", () => {
  it("pauses one agent of several until its reset, and never the last one left", () => {
    let now = 1_000_000;
    const caps = createCapabilities({
      agents: ["claude", "cmd"],
      tags: ["gpu"],
      backoffMs: 60_000,
      backoffMaxMs: 3_600_000,
      now: () => now,
    });
    expect(caps.advertised()).toEqual({ agents: ["claude", "cmd"], tags: ["gpu"] });
    const until = caps.pauseAgent("claude", new Date(now + 120_000));
    expect(until?.getTime()).toBe(now + 120_000);
    expect(caps.advertised().agents).toEqual(["cmd"]);
    // The last agent left is not paused alone: the caller pauses the whole worker, as before.
    expect(caps.pauseAgent("cmd", undefined)).toBeUndefined();
    expect(caps.advertised().agents).toEqual(["cmd"]);
    now += 120_001;
    expect(caps.advertised().agents).toEqual(["claude", "cmd"]);
    // Without a reset time, the backoff doubles per limit in a row, until a success.
    expect(caps.pauseAgent("cmd", undefined)?.getTime()).toBe(now + 60_000);
    now += 60_001;
    expect(caps.pauseAgent("cmd", undefined)?.getTime()).toBe(now + 120_000);
    now += 120_001;
    caps.succeeded("cmd");
    expect(caps.pauseAgent("cmd", undefined)?.getTime()).toBe(now + 60_000);
  });

  it("with one agent never pauses it alone", () => {
    const caps = createCapabilities({ agents: ["claude"], tags: [], backoffMs: 1000, backoffMaxMs: 2000 });
    expect(caps.pauseAgent("claude", undefined)).toBeUndefined();
    expect(caps.advertised()).toEqual({ agents: ["claude"], tags: [] });
  });
});
