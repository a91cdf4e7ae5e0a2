import { getEventListeners } from "node:events";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import { inProcessAuth } from "../auth/in-process.js";
import { mintReadToken } from "../auth/read-token.js";
import { createTokenAuth } from "../auth/token-auth.js";
import type { AuthPort } from "../ports/index.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import {
  DEFAULT_EVENT_STREAM,
  type EventFeed,
  type EventStreamConfig,
  startStoreEventFeed,
} from "./index.js";
import type { StoreEventFeed } from "./store-feed.js";
import { sseReader } from "./testing/sse-reader.js";

// The audit-event stream on the embedded store (PGlite): replay, truncation, live delivery woken by the
// store's in-process signal, keep-alive, a client that never reads, and who may read it.

let store: Store;
let feed: StoreEventFeed;
let planNo = 0;
let planId: string;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  // A poll far longer than any wait below: live delivery must come from the store's signal.
  feed = await startStoreEventFeed({ store, pollMs: 60_000 });
});
afterAll(async () => {
  await feed?.close();
  await store?.close();
});
beforeEach(async () => {
  planId = `stream-${++planNo}`;
  await store.importPlan(plan(planId, [task("A"), task("B")]));
});

const config = (overrides: Partial<EventStreamConfig> = {}): EventStreamConfig => ({
  ...DEFAULT_EVENT_STREAM,
  keepAliveMs: 10_000,
  ...overrides,
});

function app(
  options: { settings?: Partial<EventStreamConfig>; auth?: AuthPort; eventFeed?: EventFeed } = {},
) {
  const logs: string[] = [];
  const a = createApp({
    withStore: (use) => use(store),
    auth: options.auth ?? inProcessAuth,
    eventFeed: options.eventFeed ?? feed,
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000, events: config(options.settings) },
    log: (_level, event) => logs.push(event),
  });
  return { a, logs };
}

async function open(a: ReturnType<typeof createApp>, path: string, headers: Record<string, string> = {}) {
  const response = await a.request(path, { headers });
  expect(response.status, await peekError(response)).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  if (!response.body) throw new Error("no body");
  return sseReader(response.body);
}

async function peekError(response: Response): Promise<string> {
  return response.status === 200 ? "" : await response.clone().text();
}

async function append(type: string, payload: Record<string, string | number> = {}) {
  await store.appendEvent({ planId, taskId: "A", eventType: type, payload });
  const events = await store.listEvents(planId, { limit: 10_000 });
  return events.at(-1)?.id ?? 0;
}

describe("the audit-event stream on PGlite", () => {
  it("replays what followed Last-Event-ID, then delivers new events as they commit", async () => {
    const stored = await store.listEvents(planId);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const { a } = app();
    const sse = await open(a, `/api/v1/plans/${planId}/events/stream`, {
      "last-event-id": String(stored[0]?.id),
    });
    for (const event of stored.slice(1)) {
      const frame = await sse.nextEvent();
      expect(frame?.id).toBe(String(event.id));
      expect(JSON.parse(frame?.data ?? "")).toMatchObject({
        id: event.id,
        plan_id: planId,
        event_type: event.eventType,
      });
    }
    const id = await append("note", { worker_id: "w-1", cost_usd: "0.100000" });
    const live = await sse.nextEvent(2000);
    expect(live?.id).toBe(String(id));
    expect(JSON.parse(live?.data ?? "")).toMatchObject({
      event_type: "note",
      task_id: "A",
      worker_id: "w-1",
      payload: { cost_usd: "0.100000" },
    });
    await sse.cancel();
  });

  it("starts at the end without Last-Event-ID, takes ?after= instead, and lets the header win", async () => {
    const { a } = app();
    const fresh = await open(a, `/api/v1/plans/${planId}/events/stream`);
    const id = await append("after-connect");
    expect((await fresh.nextEvent())?.id).toBe(String(id));
    await fresh.cancel();

    const first = (await store.listEvents(planId))[0]?.id ?? 0;
    const byQuery = await open(a, `/api/v1/plans/${planId}/events/stream?after=${id - 1}`);
    expect((await byQuery.nextEvent())?.id).toBe(String(id));
    await byQuery.cancel();
    const byHeader = await open(a, `/api/v1/plans/${planId}/events/stream?after=${id}`, {
      "last-event-id": String(first),
    });
    expect(Number((await byHeader.nextEvent())?.id)).toBeGreaterThan(first);
    await byHeader.cancel();
  });

  it("streams every plan's events on /api/v1/events/stream", async () => {
    const { a } = app();
    const sse = await open(a, "/api/v1/events/stream");
    const other = `other-${planNo}`;
    await store.importPlan(plan(other, [task("X")]));
    const frame = await sse.nextEvent();
    expect(JSON.parse(frame?.data ?? "").plan_id).toBe(other);
    await sse.cancel();
  });

  it("replays at most replayLimit events, then sends replay_truncated and ends", async () => {
    for (let i = 0; i < 6; i++) await append(`bulk-${i}`);
    const all = await store.listEvents(planId);
    const { a } = app({ settings: { replayLimit: 4 } });
    const sse = await open(a, `/api/v1/plans/${planId}/events/stream?after=0`);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await sse.nextEvent())?.id ?? "");
    expect(ids).toEqual(all.slice(0, 4).map((e) => String(e.id)));
    const marker = await sse.nextEvent();
    expect(marker?.event).toBe("replay_truncated");
    expect(JSON.parse(marker?.data ?? "")).toEqual({ after: all[3]?.id, limit: 4 });
    expect(await sse.next()).toBeUndefined();

    const resumed = await open(a, `/api/v1/plans/${planId}/events/stream`, { "last-event-id": ids[3] ?? "" });
    expect((await resumed.nextEvent())?.id).toBe(String(all[4]?.id));
    await resumed.cancel();
  });

  it("ends every stream when the host stops, through one listener on its stopping signal", async () => {
    const stopping = new AbortController();
    const a = createApp({
      withStore: (use) => use(store),
      auth: inProcessAuth,
      eventFeed: feed,
      stopping: stopping.signal,
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000, events: config() },
    });
    // More streams than Node's ten listeners before a MaxListenersExceededWarning.
    const streams = await Promise.all(
      Array.from({ length: 12 }, () => open(a, `/api/v1/plans/${planId}/events/stream`)),
    );
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(1);
    stopping.abort();
    for (const sse of streams) expect(await sse.nextEvent()).toBeUndefined();
  });

  it("opens with a comment at once, then sends a keep-alive comment when idle", async () => {
    const { a } = app({ settings: { keepAliveMs: 60_000 } });
    const sse = await open(a, `/api/v1/plans/${planId}/events/stream`);
    // The head goes out with the first bytes: a browser sees the stream open before any event.
    expect(await sse.next(2000)).toEqual({ comment: "open" });
    await sse.cancel();
    const idle = await open(
      app({ settings: { keepAliveMs: 50 } }).a,
      `/api/v1/plans/${planId}/events/stream`,
    );
    expect(await idle.next(2000)).toEqual({ comment: "open" });
    expect(await idle.next(2000)).toEqual({ comment: "keep-alive" });
    await idle.cancel();
  });

  it("drops a client that never reads instead of queueing without limit", async () => {
    const big = "x".repeat(2000);
    for (let i = 0; i < 40; i++) await append(`big-${i}`, { text: big });
    let reads = 0;
    const counting: EventFeed = {
      ...feed,
      read: (...args) => {
        reads++;
        return feed.read(...args);
      },
    };
    const { a, logs } = app({
      eventFeed: counting,
      settings: { keepAliveMs: 50, maxQueuedBytes: 4096, replayLimit: 1000 },
    });
    const response = await a.request(`/api/v1/plans/${planId}/events/stream?after=0`);
    expect(response.status).toBe(200);
    // Never read the body: the queue fills, no room comes within a keep-alive interval, the client is dropped.
    await expect.poll(() => logs, { timeout: 3000 }).toContain("events.client_dropped");
    // Reads stopped at the first page: the rest stayed in the database, not in memory.
    expect(reads).toBe(1);
    await expect(response.body?.getReader().read()).rejects.toThrow(/dropped/);
  });

  it("answers 404 for an unknown plan and 422 for a bad Last-Event-ID", async () => {
    const { a } = app();
    const missing = await a.request("/api/v1/plans/nope/events/stream");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error_code: string }).error_code).toBe("plan_not_found");
    const bad = await a.request(`/api/v1/plans/${planId}/events/stream`, {
      headers: { "last-event-id": "7x" },
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/Last-Event-ID must be an event id/);
  });
});

describe("who may read the stream", () => {
  const BOOTSTRAP = "bootstrap-secret-for-stream-tests";
  const ADMIN = "admin-secret-for-stream-tests-01";

  it("takes the read API's credentials: admin and read-only tokens, not a worker's bearer nor none", async () => {
    const auth = createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN });
    const { a } = app({ auth });
    const minted = await mintReadToken();
    await store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash, label: "stream" });
    const registered = await a.request("/workers/register", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BOOTSTRAP}` },
      body: '{"hostname":"box"}',
    });
    const worker = ((await registered.json()) as { token: string }).token;
    for (const path of [`/api/v1/plans/${planId}/events/stream`, "/api/v1/events/stream"]) {
      const status = async (token?: string) => {
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        const response = await a.request(path, { headers });
        await response.body?.cancel();
        return response.status;
      };
      expect(await status(), `${path} without a token`).toBe(401);
      expect(await status(worker), `${path} with a worker bearer`).toBe(401);
      expect(await status(BOOTSTRAP), `${path} with the bootstrap token`).toBe(401);
      expect(await status(minted.token), `${path} with a read token`).toBe(200);
      expect(await status(ADMIN), `${path} with the admin token`).toBe(200);
    }
  });
});
