import { createScheduledController, runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { mintReadToken } from "../../worker-api/src/auth/read-token.js";
import worker from "../../worker-api/src/cloudflare/entry-workers.js";
import { coordinatorEventFeed } from "../../worker-api/src/cloudflare/event-feed.js";
import { ALL_PLANS, signalEvents } from "../../worker-api/src/cloudflare/event-signals.js";
import { openNeonPool } from "../../worker-api/src/store/open/neon.js";
import { type RawPool, rawTransactions } from "../../worker-api/src/store/testing/raw-transactions.js";
import { DEFAULT_EVENT_STREAM, openEventStream } from "../../worker-api/src/stream/index.js";
import { sseReader } from "../../worker-api/src/stream/testing/sse-reader.js";
import { BOOTSTRAP_TOKEN, call, flushEventBuffers, importChainPlan, register, withStore } from "./support.js";

// The audit-event stream on the Worker: streams park in the Coordinator and are woken by the requests
// (and the event buffer's flush) that commit events. The project's WHILLY_EVENTS_POLL is 600 s, so an
// event that arrives at all within a test was woken, not polled; keep-alive is 3 s and the per-client
// queue 1 KiB (vitest.config.ts).

type Reader = ReturnType<typeof sseReader>;

/** Opens a stream through the Worker's fetch. @returns the response (body unread). */
function open(path: string, headers: Record<string, string> = {}, token = env.WHILLY_ADMIN_TOKEN) {
  return exports.default.fetch(`http://whilly.test${path}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
}

async function stream(planId: string | undefined, lastEventId?: number): Promise<Reader> {
  const path =
    planId === undefined
      ? "/api/v1/events/stream"
      : `/api/v1/plans/${encodeURIComponent(planId)}/events/stream`;
  const response = await open(
    path,
    lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
  );
  expect(response.status).toBe(200);
  if (!response.body) throw new Error("no body");
  const reader = sseReader(response.body);
  // Every stream opens with a comment, so the client sees it open before any event.
  expect(await reader.next()).toEqual({ comment: "open" });
  return reader;
}

function coordinator(name: string) {
  return env.COORDINATOR.get(env.COORDINATOR.idFromName(name));
}

async function lastId(planId: string): Promise<number> {
  return (await withStore((store) => store.listEvents(planId, { limit: 10_000 }))).at(-1)?.id ?? 0;
}

/**
 * Waits for the stream to park in `parkedIn`, runs `act`, and expects the very next frame to be an
 * event: it came from the wake-up, neither from the 600 s poll nor from the read after a keep-alive.
 * Call it just after the stream opened or sent a frame, so the next keep-alive is an interval away.
 */
async function expectWoken(reader: Reader, parkedIn: string, act: () => Promise<unknown>) {
  await expect.poll(() => coordinator(parkedIn).parkedStreams()).toBeGreaterThan(0);
  await act();
  return nextEvent(reader);
}

/** The next frame, which must be an event (not a keep-alive). @returns its data. */
async function nextEvent(reader: Reader) {
  const frame = await reader.next();
  expect(frame?.comment).toBeUndefined();
  return JSON.parse(frame?.data ?? "null");
}

describe.skipIf(!inject("workerdDatabaseUrl"))("the audit-event stream on the Worker", () => {
  let pool: ReturnType<typeof openNeonPool>;
  let raw: ReturnType<typeof rawTransactions>;
  beforeAll(() => {
    pool = openNeonPool({ url: env.WHILLY_DATABASE_URL, wsProxy: env.WHILLY_NEON_WS_PROXY }, 12);
    raw = rawTransactions(pool as unknown as RawPool);
  });
  afterAll(async () => {
    await pool?.end();
    // The sweep buffered `worker.offline` summaries: write them before the run stops the proxy.
    await flushEventBuffers();
  });

  it("wakes a parked stream when a request, the event buffer or the sweep commits events", async () => {
    const planId = await importChainPlan();
    const { workerId, token } = await register();
    const follower = await stream(planId);
    const everything = await stream(undefined);
    const fence = { worker_id: workerId, plan_id: planId };

    let version = 0;
    const claim = await expectWoken(follower, planId, async () => {
      const reply = await call("POST", "/tasks/claim", fence, token);
      version = reply.body.task.version;
    });
    expect(claim).toMatchObject({ plan_id: planId, task_id: "A", event_type: "CLAIM" });
    expect(await nextEvent(everything)).toMatchObject({ plan_id: planId, event_type: "CLAIM" });
    const start = await expectWoken(everything, ALL_PLANS, () =>
      call("POST", "/tasks/A/start", { ...fence, version }, token),
    );
    expect(start).toMatchObject({ plan_id: planId, task_id: "A", event_type: "START" });
    expect(await nextEvent(follower)).toMatchObject({ event_type: "START" });

    const buffer = env.EVENT_BUFFER.get(env.EVENT_BUFFER.idFromName(planId));
    const flushed = await expectWoken(follower, planId, async () => {
      await buffer.append([{ planId, taskId: "A", eventType: "agent.output", payload: { n: 1 } }]);
      await runDurableObjectAlarm(buffer);
    });
    expect(flushed).toMatchObject({ event_type: "agent.output", payload: { n: 1 } });
    expect(await nextEvent(everything)).toMatchObject({ event_type: "agent.output", payload: { n: 1 } });

    // The sweep: the worker falls silent (WHILLY_HEARTBEAT_TIMEOUT is 0.5 s) and loses its task.
    const released = await expectWoken(follower, planId, () =>
      expect
        .poll(async () => {
          await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env);
          return (await withStore((store) => store.getTask(planId, "A")))?.status;
        })
        .toBe("PENDING"),
    );
    expect(released).toMatchObject({ event_type: "RELEASE", payload: { reason: "worker_offline" } });
    await follower.cancel();
    await everything.cancel();
  });

  it("answers a stream's wait at once when a signal came since the generation it saw", async () => {
    const stub = coordinator(`generations-${crypto.randomUUID()}`);
    const seen = await stub.eventGeneration();
    expect(await stub.notifyEvents()).toBe(0);
    // Parked with the poll far away, yet answered: the signal came while the stream was reading.
    const next = await stub.waitForEvents(seen, 600_000, "t1");
    expect(next).not.toBe(seen);
    const parked = stub.waitForEvents(next, 600_000, "t2");
    await expect.poll(() => stub.parkedStreams()).toBe(1);
    await stub.abandonEventWait("t2");
    expect(await parked).toBe(next);
    expect(await stub.parkedStreams()).toBe(0);
  });

  it("replays from Last-Event-ID or ?after=, at most 1,000 events, then replay_truncated", async () => {
    const planId = await importChainPlan();
    const start = await lastId(planId);
    await withStore((store) =>
      store.appendEvents(
        Array.from({ length: 1001 }, (_, n) => ({ planId, eventType: "agent.output", payload: { n } })),
      ),
    );
    const ids: number[] = [];
    const reader = await stream(planId, start);
    for (let frame = await reader.next(); frame !== undefined; frame = await reader.next()) {
      if (frame.event === "replay_truncated") {
        expect(JSON.parse(frame.data ?? "")).toEqual({ after: ids.at(-1), limit: 1000 });
        continue;
      }
      if (frame.id) ids.push(Number(frame.id));
    }
    expect(ids).toHaveLength(1000);

    const rest = await open(`/api/v1/plans/${planId}/events/stream?after=0`, {
      "last-event-id": String(ids.at(-1)),
    });
    const tail = sseReader(rest.body as ReadableStream<Uint8Array>);
    const last = await tail.nextEvent();
    expect(JSON.parse(last?.data ?? "")).toMatchObject({ payload: { n: 1000 } });
    await tail.cancel();
  });

  it("delivers every event once while transactions commit out of id order and the reader reconnects", async () => {
    const planId = await importChainPlan();
    const last = await lastId(planId);
    // `early` takes its transaction id first; `late` then takes the lower event id and stays open.
    const early = await raw.begin();
    await early.takeXid();
    const late = await raw.begin();
    const lowId = await late.insertEvent(planId, "held-open");
    const highId = await early.insertEvent(planId, "committed-first");
    expect(lowId).toBeLessThan(highId);
    await early.commit();
    await signalEvents(env, [planId]);
    const first = await stream(planId, last);
    expect((await first.nextEvent())?.id).toBe(String(highId));
    await first.cancel();
    const again = await stream(planId, highId);
    await late.commit();
    await signalEvents(env, [planId]);
    expect((await again.nextEvent())?.id).toBe(String(lowId));
    await again.cancel();

    // Resume from the last event seen: `late`'s, which sorts after `early`'s.
    let reader = await stream(planId, lowId);
    const writers = Array.from({ length: 24 }, async (_, i) => {
      const tx = await raw.begin();
      if (i % 3 === 0) await tx.takeXid();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      const ids = [await tx.insertEvent(planId, `w${i}`)];
      if (i % 2 === 0) ids.push(await tx.insertEvent(planId, `w${i}b`));
      await tx.commit();
      // What a Worker request does once its write committed.
      await signalEvents(env, [planId]);
      return ids;
    });
    const written = (await Promise.all(writers)).flat();
    const seen: number[] = [];
    while (seen.length < written.length) {
      const frame = await reader.nextEvent();
      if (!frame?.id) throw new Error("the stream ended");
      seen.push(Number(frame.id));
      if (seen.length % 7 === 0) {
        await reader.cancel();
        reader = await stream(planId, Number(frame.id));
      }
    }
    await reader.cancel();
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual([...written].sort((a, b) => a - b));
  });

  it("drops a client that stops reading once its queue stays full", async () => {
    const planId = await importChainPlan();
    const start = await lastId(planId);
    const text = "x".repeat(4000);
    const count = 200;
    await withStore((store) =>
      store.appendEvents(
        Array.from({ length: count }, (_, n) => ({
          planId,
          eventType: "agent.output",
          payload: { n, text },
        })),
      ),
    );
    const warnings = vi.spyOn(console, "warn");
    try {
      const response = await open(`/api/v1/plans/${planId}/events/stream`, {
        "last-event-id": String(start),
      });
      // The client reads nothing: its queue fills, and a keep-alive interval later the Worker drops it.
      await expect
        .poll(() => warnings.mock.calls.some(([line]) => String(line).includes(`"plan_id":"${planId}"`)), {
          timeout: 10_000,
        })
        .toBe(true);
      expect(String(warnings.mock.calls.at(-1)?.[0])).toContain("events.client_dropped");
      const reader = sseReader(response.body as ReadableStream<Uint8Array>);
      let received = 0;
      for (;;) {
        const frame = await reader.next().catch(() => undefined);
        if (frame === undefined) break;
        if (frame.id) received++;
      }
      expect(received).toBeLessThan(count);
    } finally {
      warnings.mockRestore();
    }
  });

  it("ends a stream cleanly when its subrequest budget is spent; the client resumes where it stopped", async () => {
    const planId = await importChainPlan();
    const start = await lastId(planId);
    await withStore((store) =>
      store.appendEvents(
        Array.from({ length: 300 }, (_, n) => ({ planId, eventType: "agent.output", payload: { n } })),
      ),
    );
    const follow = (afterId: number) => {
      const feed = coordinatorEventFeed({ bindings: env, withStore, pollMs: 600_000, subrequests: 10 })();
      const body = openEventStream({
        feed,
        planId,
        afterId,
        settings: DEFAULT_EVENT_STREAM,
        format: (event) => JSON.stringify({ n: event.payload.n }),
        stopping: [feed.ending as AbortSignal],
      });
      return { feed, reader: sseReader(body) };
    };
    const { feed, reader } = follow(start);
    const got: number[] = [];
    let lastEventId = start;
    for (let frame = await reader.next(); frame !== undefined; frame = await reader.next()) {
      if (frame.data) got.push(JSON.parse(frame.data).n);
      if (frame.id) lastEventId = Number(frame.id);
    }
    expect(feed.ending?.aborted).toBe(true);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(300);
    expect(got).toEqual(Array.from({ length: got.length }, (_, n) => n));
    const resumed = follow(lastEventId).reader;
    expect(JSON.parse((await resumed.nextEvent())?.data ?? "")).toEqual({ n: got.length });
    await resumed.cancel();
  });

  it("answers 401 without a token or with a worker's, and streams to the admin token and a read token", async () => {
    const planId = await importChainPlan();
    const { token: workerToken } = await register();
    const minted = await mintReadToken();
    await withStore((store) => store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash }));
    for (const path of [`/api/v1/plans/${planId}/events/stream`, "/api/v1/events/stream"]) {
      for (const token of [env.WHILLY_ADMIN_TOKEN, minted.token]) {
        const response = await open(path, {}, token);
        expect(response.status, path).toBe(200);
        expect(response.headers.get("content-type")).toContain("text/event-stream");
        await response.body?.cancel();
      }
      for (const token of [workerToken, BOOTSTRAP_TOKEN, ""]) {
        const response = await exports.default.fetch(`http://whilly.test${path}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
        expect(response.status, `${path} ${token}`).toBe(401);
        expect(((await response.json()) as { error_code: string }).error_code).toBe(
          "missing_or_invalid_read_token",
        );
      }
    }
  });
});
