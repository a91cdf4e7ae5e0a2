import { describe, expect, it } from "vitest";
import { createPauseGate } from "./pause.js";

describe("pause gate", () => {
  it("pauses until the reset time named, capped, and keeps a longer pause already set", () => {
    let now = 1_000_000;
    const gate = createPauseGate({ backoffMs: 1000, backoffMaxMs: 10_000, now: () => now });
    expect(gate.pausedUntil()).toBeUndefined();
    expect(gate.pause(new Date(now + 5000)).getTime()).toBe(now + 5000);
    expect(gate.pause(new Date(now + 60_000)).getTime()).toBe(now + 10_000);
    expect(gate.pause(new Date(now + 2000)).getTime()).toBe(now + 10_000);
    now += 10_000;
    expect(gate.pausedUntil()).toBeUndefined();
  });

  it("without a reset time (or one already past) doubles the backoff per limit in a row, until an attempt succeeds", () => {
    let now = 0;
    const gate = createPauseGate({ backoffMs: 1000, backoffMaxMs: 3000, now: () => now });
    const pauses: number[] = [];
    for (const resetAt of [undefined, new Date(now - 1), undefined]) {
      pauses.push(gate.pause(resetAt).getTime() - now);
      now += 5000;
    }
    gate.succeeded();
    pauses.push(gate.pause(undefined).getTime() - now);
    expect(pauses).toEqual([1000, 2000, 3000, 1000]);
  });

  it("wait resolves when the pause is over, or at once when stopped", async () => {
    const gate = createPauseGate({ backoffMs: 30, backoffMaxMs: 30 });
    const until = gate.pause(undefined).getTime();
    await gate.wait(new AbortController().signal);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    gate.pause(undefined);
    await gate.wait(AbortSignal.abort());
    expect(gate.pausedUntil()).toBeDefined();
  });
});
