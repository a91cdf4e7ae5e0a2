import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Logger } from "../ports/index.js";
import type { NewEvent } from "../store/events/insert-events.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { createEventBuffer } from "./event-buffer.js";

let store: Store;
let seq = 0;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
});
afterAll(async () => store?.close());

/** A fresh plan to write events to (the store drops events of unknown plans). */
async function newPlan(): Promise<string> {
  seq += 1;
  const id = `eb-${seq}`;
  await store.createPlan({ id, name: id });
  return id;
}

function events(planId: string, from: number, to: number): NewEvent[] {
  const out: NewEvent[] = [];
  for (let n = from; n <= to; n++) out.push({ planId, eventType: "test.event", payload: { n } });
  return out;
}

/** The `n` of every stored test event of the plan, in log order. */
async function stored(planId: string): Promise<number[]> {
  const rows = await store.listEvents(planId, { limit: 10_000 });
  return rows.filter((e) => e.eventType === "test.event").map((e) => Number(e.payload.n));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the event buffer", () => {
  it("writes a small batch once its oldest event has waited the flush delay", async () => {
    const planId = await newPlan();
    const buffer = createEventBuffer({ write: (b) => store.appendEvents(b), maxDelayMs: 50 });
    buffer.append(events(planId, 1, 3));
    expect(buffer.stats().queued).toBe(3);
    await vi.waitFor(async () => expect(await stored(planId)).toEqual([1, 2, 3]));
    expect(buffer.stats()).toMatchObject({ queued: 0, written: 3, dropped: 0 });
    await buffer.drain();
  });

  it("writes a full batch at once, without waiting for the delay", async () => {
    const planId = await newPlan();
    const buffer = createEventBuffer({ write: (b) => store.appendEvents(b), maxDelayMs: 60_000, maxRows: 5 });
    buffer.append(events(planId, 1, 4));
    await sleep(150);
    expect(await stored(planId)).toEqual([]);
    buffer.append(events(planId, 5, 7));
    // Well inside the 60 s delay: the size triggered it.
    await vi.waitFor(async () => expect(await stored(planId)).toEqual([1, 2, 3, 4, 5]), { timeout: 5000 });
    expect(buffer.stats().queued).toBe(2);
    await buffer.drain();
    expect(await stored(planId)).toEqual(range(1, 7));
  });

  it("retries a failed flush without duplicating or reordering events", async () => {
    const planId = await newPlan();
    const lines: [string, string][] = [];
    const log: Logger = (level, event) => lines.push([level, event]);
    let attempts = 0;
    const buffer = createEventBuffer({
      maxDelayMs: 10,
      retryDelayMs: () => 20,
      log,
      write: async (batch) => {
        attempts += 1;
        // First attempt: the database is unreachable; nothing is written.
        if (attempts === 1) throw new Error("connection refused");
        // Second attempt: the batch commits but the acknowledgement is lost, and more events arrive.
        if (attempts === 2) {
          await store.appendEvents(batch);
          buffer.append(events(planId, 6, 8));
          throw new Error("connection reset after commit");
        }
        return store.appendEvents(batch);
      },
    });
    buffer.append(events(planId, 1, 5));
    await vi.waitFor(() => expect(attempts).toBeGreaterThanOrEqual(3));
    expect(await buffer.drain()).toBe(0);
    expect(await stored(planId)).toEqual(range(1, 8));
    expect(buffer.stats()).toMatchObject({ failedFlushes: 2, written: 8, queued: 0 });
    expect(lines.filter(([, e]) => e === "event_buffer.flush_failed")).toHaveLength(2);
  });

  it("drains everything on stop and drops what comes after", async () => {
    const planId = await newPlan();
    const buffer = createEventBuffer({ write: (b) => store.appendEvents(b), maxDelayMs: 60_000 });
    buffer.append(events(planId, 1, 700));
    expect(await buffer.drain()).toBe(0);
    expect(await stored(planId)).toEqual(range(1, 700));
    buffer.append(events(planId, 701, 701));
    await sleep(50);
    expect(buffer.stats()).toMatchObject({ written: 700, dropped: 1, queued: 0 });
    expect((await stored(planId)).length).toBe(700);
  });

  it("drops the newest events when full and counts them", async () => {
    const planId = await newPlan();
    const lines: [string, string, object | undefined][] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const buffer = createEventBuffer({
      capacity: 10,
      maxDelayMs: 1,
      log: (level, event, fields) => lines.push([level, event, fields]),
      write: async (batch) => {
        await gate;
        return store.appendEvents(batch);
      },
    });
    buffer.append(events(planId, 1, 15));
    expect(buffer.stats()).toMatchObject({ queued: 10, dropped: 5 });
    expect(lines).toContainEqual([
      "warn",
      "event_buffer.dropped",
      { dropped: 5, total_dropped: 5, closed: false },
    ]);
    open();
    expect(await buffer.drain()).toBe(0);
    expect(await stored(planId)).toEqual(range(1, 10));
  });

  it("gives up a drain at its deadline while the database stays down, saying how many were lost", async () => {
    const lines: [string, string, object | undefined][] = [];
    const buffer = createEventBuffer({
      write: async () => {
        throw new Error("down");
      },
      retryDelayMs: () => 50,
      log: (level, event, fields) => lines.push([level, event, fields]),
    });
    buffer.append(events("nowhere", 1, 3));
    const started = Date.now();
    expect(await buffer.drain(300)).toBe(3);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(lines).toContainEqual(["error", "event_buffer.drain_incomplete", { lost: 3, timeout_ms: 300 }]);
  });
});
