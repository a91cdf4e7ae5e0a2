import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { createApp } from "../app/app.js";
import { inProcessAuth } from "../auth/in-process.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openPostgresStore } from "../store/open/postgres.js";
import type { Store } from "../store/store.js";
import { rawEventWriter } from "../store/testing/raw-events.js";
import { DEFAULT_EVENT_STREAM, type StoreEventFeed, startStoreEventFeed } from "../stream/index.js";
import { sseReader } from "../stream/testing/sse-reader.js";
import { startNodeServer } from "./server.js";
import { parseServerSettings } from "./settings.js";

// The audit-event stream on real Postgres, where transactions run concurrently: events whose ids commit
// out of order are each delivered exactly once, across reconnects; LISTEN/NOTIFY wakes followers with
// one notification per transaction; `whilly server` serves it.

describe.skipIf(!postgresAvailable())("the audit-event stream on Postgres", () => {
  let database: TestDatabase;
  let store: Store;
  let feed: StoreEventFeed;
  let raw: ReturnType<typeof rawEventWriter>;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url, { max: 4 });
    // A long poll: anything delivered quickly was woken by a notification.
    feed = await startStoreEventFeed({ store, pollMs: 30_000 });
    raw = rawEventWriter(database.url);
    app = createApp({
      withStore: (use) => use(store),
      auth: inProcessAuth,
      eventFeed: feed,
      settings: {
        leaseMs: 60_000,
        claimWaitMs: 0,
        claimRecheckMs: 1000,
        events: { ...DEFAULT_EVENT_STREAM, keepAliveMs: 10_000 },
      },
    });
  });
  afterAll(async () => {
    await feed?.close();
    await raw?.close();
    await store?.close();
    await database?.drop();
  });

  async function stream(planId: string, lastEventId?: number) {
    const headers: Record<string, string> =
      lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) };
    const response = await app.request(`/api/v1/plans/${encodeURIComponent(planId)}/events/stream`, {
      headers,
    });
    expect(response.status).toBe(200);
    if (!response.body) throw new Error("no body");
    return sseReader(response.body);
  }

  async function lastId(planId: string): Promise<number> {
    return (await store.listEvents(planId, { limit: 10_000 })).at(-1)?.id ?? 0;
  }

  it("delivers an event whose transaction commits after a later id, once, also across a reconnect", async () => {
    await store.importPlan(plan("late", [task("A")]));
    const start = await lastId("late");
    // `early` takes its transaction id first; `late` then takes the lower event id and stays open.
    const early = await raw.begin();
    await early.takeXid();
    const late = await raw.begin();
    const lowId = await late.insertEvent("late", "held-open");
    const highId = await early.insertEvent("late", "committed-first");
    expect(lowId).toBeLessThan(highId);
    await early.commit();

    const first = await stream("late", start);
    expect((await first.nextEvent())?.id).toBe(String(highId));
    await first.cancel();

    // The follower reconnects from the highest id it saw; the lower id commits only now.
    const again = await stream("late", highId);
    await late.commit();
    expect((await again.nextEvent(3000))?.id).toBe(String(lowId));
    const extra = await raw.insertEvent("late", "after");
    expect((await again.nextEvent(3000))?.id).toBe(String(extra));
    await again.cancel();
  });

  it("loses and repeats nothing while many transactions commit out of id order and the reader reconnects", async () => {
    await store.importPlan(plan("busy", [task("A")]));
    let last = await lastId("busy");
    let reader = await stream("busy", last);
    const writers = Array.from({ length: 40 }, async (_, i) => {
      const tx = await raw.begin();
      if (i % 3 === 0) await tx.takeXid();
      await sleep(Math.random() * 40);
      const ids = [await tx.insertEvent("busy", `w${i}`)];
      await sleep(Math.random() * 40);
      if (i % 2 === 0) ids.push(await tx.insertEvent("busy", `w${i}b`));
      await tx.commit();
      return ids;
    });
    const written = (await Promise.all(writers)).flat();
    const seen: number[] = [];
    while (seen.length < written.length) {
      const frame = await reader.nextEvent(5000);
      if (!frame?.id) throw new Error("the stream ended");
      last = Number(frame.id);
      seen.push(last);
      if (seen.length % 7 === 0) {
        await reader.cancel();
        reader = await stream("busy", last);
      }
    }
    await reader.cancel();
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual([...written].sort((a, b) => a - b));
  });

  it("notifies once per transaction however many events it writes", async () => {
    await store.importPlan(plan("quiet", [task("A")]));
    const heard: (string | undefined)[] = [];
    const listener = await store.listenForEvents?.((planId) => heard.push(planId));
    try {
      await expect.poll(() => heard).toEqual([undefined]);
      const tx = await raw.begin();
      for (let i = 0; i < 5; i++) await tx.insertEvent("quiet", `n${i}`);
      await tx.commit();
      await store.appendEvents([
        { planId: "quiet", eventType: "a", payload: {} },
        { planId: "quiet", eventType: "b", payload: {} },
      ]);
      await expect.poll(() => heard.length).toBe(3);
      await sleep(200);
      expect(heard).toEqual([undefined, "quiet", "quiet"]);
    } finally {
      await listener?.close();
    }
  });

  it("is served by whilly server, woken by another connection's commit", async () => {
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "bootstrap-secret-for-stream-pg",
      WHILLY_EVENTS_KEEPALIVE: "0.05",
      WHILLY_EVENTS_POLL: "30",
    });
    const server = await startNodeServer({ store, settings, auth: inProcessAuth, port: 0 });
    try {
      await store.importPlan(plan("served", [task("A")]));
      const response = await fetch(`${server.url}/api/v1/plans/served/events/stream`);
      expect(response.status).toBe(200);
      const sse = sseReader(response.body as ReadableStream<Uint8Array>);
      expect(await sse.next(2000)).toEqual({ comment: "open" });
      expect(await sse.next(2000)).toEqual({ comment: "keep-alive" });
      const id = await raw.insertEvent("served", "from-elsewhere");
      expect((await sse.nextEvent(2000))?.id).toBe(String(id));
      await sse.cancel();
    } finally {
      await server.close(1000);
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
