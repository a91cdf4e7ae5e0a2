import { describe, expect, it } from "vitest";
import type { NewEvent } from "../store/events/insert-events.js";
import { EventBatcher, flushRetryDelayMs } from "./batcher.js";

const event = (n: number, key?: string): NewEvent => ({
  planId: "p",
  eventType: "test.event",
  payload: { n },
  ...(key ? { idempotencyKey: key } : {}),
});

describe("EventBatcher", () => {
  it("keys events <bufferId>:<seq> in order and keeps a caller's own key", () => {
    const batcher = new EventBatcher({ bufferId: "buf" });
    batcher.add([event(1), event(2, "mine"), event(3)], 0);
    expect(batcher.peek().map((e) => e.idempotencyKey)).toEqual(["buf:1", "mine", "buf:3"]);
  });

  it("is due after the oldest event waited maxDelayMs, or at once with a full batch", () => {
    const batcher = new EventBatcher({ bufferId: "b", maxRows: 3, maxDelayMs: 100 });
    expect(batcher.dueInMs(0)).toBeUndefined();
    batcher.add([event(1)], 1000);
    batcher.add([event(2)], 1050);
    expect(batcher.dueInMs(1000)).toBe(100);
    expect(batcher.dueInMs(1060)).toBe(40);
    expect(batcher.dueInMs(1200)).toBe(0);
    batcher.add([event(3)], 1060);
    expect(batcher.dueInMs(1060)).toBe(0);
  });

  it("hands out the same head batch until it is acknowledged, never re-queuing at the tail", () => {
    const batcher = new EventBatcher({ bufferId: "b", maxRows: 2 });
    batcher.add([event(1), event(2), event(3)], 0);
    const first = batcher.peek();
    expect(first.map((e) => e.payload.n)).toEqual([1, 2]);
    // A failed flush acknowledges nothing: the retry sees the same events under the same keys.
    expect(batcher.peek()).toEqual(first);
    batcher.ack(first.length);
    expect(batcher.peek().map((e) => [e.payload.n, e.idempotencyKey])).toEqual([[3, "b:3"]]);
  });

  it("refuses events beyond its capacity, oldest kept", () => {
    const batcher = new EventBatcher({ bufferId: "b", capacity: 2 });
    expect(batcher.add([event(1), event(2), event(3)], 0)).toBe(2);
    expect(batcher.add([event(4)], 0)).toBe(0);
    expect(batcher.peek().map((e) => e.payload.n)).toEqual([1, 2]);
  });

  it("backs off retries from 50 ms, doubling, capped at 5 s", () => {
    expect([1, 2, 3, 4, 10, 50].map(flushRetryDelayMs)).toEqual([50, 100, 200, 400, 5000, 5000]);
  });
});
