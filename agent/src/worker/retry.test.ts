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

  it("gives up once the next wait would pass the budget, with the last error as cause", async () => {
    let clock = 0;
    let calls = 0;
    const down = new TransportError("cannot reach the control plane", undefined);
    const error = await withRetry(
      async () => {
        calls++;
        throw down;
      },
      {
        backoff: { initialMs: 1, maxMs: 4 },
        budgetMs: 10,
        random: () => 1,
        now: () => clock,
        onRetry: (_e, ms) => (clock += ms),
      },
    ).catch((e: unknown) => e);
    // Waits of 1, 2 and 4 fit in 10; a fourth failure at 7 would wait until 11.
    expect(calls).toBe(4);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ retryable: false, cause: down });
    expect((error as Error).message).toMatch(
      /^cannot reach the control plane \(gave up after 4 attempts in 0 s; retry budget 0 s\)$/,
    );
  });
});
