import { TransportError, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { withRetry } from "./retry.js";

describe("withRetry", () => {
  it("retries retryable errors with growing, capped delays until the call succeeds", async () => {
    let calls = 0;
    const delays: number[] = [];
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 5) throw new TransportError("down", 503);
        return "ok";
      },
      { backoff: { initialMs: 1, maxMs: 4 }, random: () => 1, onRetry: (_e, ms) => delays.push(ms) },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(5);
    expect(delays).toEqual([1, 2, 4, 4]);
  });

  it("throws a non-retryable error at once", async () => {
    let calls = 0;
    const conflict = new VersionConflict("T-1", 1, 2, "DONE");
    await expect(
      withRetry(async () => {
        calls++;
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(calls).toBe(1);
  });

  it("stops retrying once the signal aborts and throws the last error", async () => {
    const stop = new AbortController();
    let calls = 0;
    const promise = withRetry(
      async () => {
        calls++;
        if (calls === 2) stop.abort();
        throw new TransportError("down", undefined);
      },
      { backoff: { initialMs: 1, maxMs: 1 }, signal: stop.signal },
    );
    await expect(promise).rejects.toBeInstanceOf(TransportError);
    expect(calls).toBe(2);
  });

  it("cuts the last wait to the time left, then gives up with the last error as cause", async () => {
    let clock = 0;
    let calls = 0;
    const down = new TransportError("cannot reach the control plane", undefined);
    const waits: number[] = [];
    const error = await withRetry(
      async () => {
        calls++;
        throw down;
      },
      {
        backoff: { initialMs: 10, maxMs: 40 },
        budgetMs: 25,
        random: () => 1,
        now: () => clock,
        onRetry: (_e, ms) => {
          waits.push(ms);
          clock += ms;
        },
      },
    ).catch((e: unknown) => e);
    // Waits of 10 ms, then 20 ms cut to the 15 ms left: the whole budget is used, the last try at 25.
    expect(waits).toEqual([10, 15]);
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ retryable: false, cause: down });
    expect((error as Error).message).toBe(
      "cannot reach the control plane (gave up after 3 attempts in 0 s; retry budget 0 s)",
    );
  });

  it("never waits past the budget: a 40 ms backoff with 25 ms left waits 25 ms", async () => {
    let clock = 0;
    const waits: number[] = [];
    await withRetry(
      async () => {
        throw new TransportError("down", undefined);
      },
      {
        backoff: { initialMs: 40, maxMs: 40 },
        budgetMs: 25,
        random: () => 1,
        now: () => clock,
        onRetry: (_e, ms) => {
          waits.push(ms);
          clock += ms;
        },
      },
    ).catch(() => undefined);
    expect(waits).toEqual([25]);
  });
});
