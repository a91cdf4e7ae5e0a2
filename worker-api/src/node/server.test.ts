import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseExposition } from "../../../test/support/prometheus-text.js";
import { inProcessAuth } from "../auth/in-process.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { jsonLogger } from "./json-log.js";
import { type NodeServer, startNodeServer } from "./server.js";
import { parseServerSettings, type ServerSettings } from "./settings.js";

let store: Store;
let seq = 0;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  for (const workerId of ["w1", "w2"]) await store.upsertWorker({ workerId, hostname: "h" });
});
afterAll(async () => store?.close());

function settings(env: Record<string, string> = {}): ServerSettings {
  return parseServerSettings({
    WHILLY_WORKER_BOOTSTRAP_TOKEN: "node-server-test-bootstrap",
    WHILLY_CLAIM_TIMEOUT: "10",
    WHILLY_CLAIM_RECHECK: "600",
    ...env,
  });
}

/** Starts a server on a free port, logging JSON lines into `lines`. */
async function start(env: Record<string, string> = {}) {
  let text = "";
  const log = jsonLogger({ write: (line: string) => (text += line) }, "debug");
  const server = await startNodeServer({ store, settings: settings(env), auth: inProcessAuth, port: 0, log });
  const lines = () =>
    text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; event: string; [key: string]: unknown });
  return { server, lines };
}

function claim(server: NodeServer, workerId: string, planId: string, signal?: AbortSignal) {
  return fetch(`${server.url}/tasks/claim`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ worker_id: workerId, plan_id: planId }),
    ...(signal ? { signal } : {}),
  });
}

const newPlanId = () => `srv-${++seq}`;

describe("startNodeServer", () => {
  it("serves the app over HTTP and logs JSON lines with stable event names", async () => {
    const { server, lines } = await start();
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const listening = lines().find((l) => l.event === "server.listening");
      expect(listening).toMatchObject({
        level: "info",
        url: server.url,
        store: "pglite",
        listens_to_store: true,
      });
      expect(typeof listening?.ts).toBe("string");
    } finally {
      await server.close();
    }
    expect(lines().map((l) => l.event)).toEqual(
      expect.arrayContaining(["server.stopping", "server.stopped"]),
    );
  });

  it("wakes a claim parked over HTTP when its plan is imported", async () => {
    const { server } = await start();
    try {
      const planId = newPlanId();
      const pending = claim(server, "w1", planId);
      await vi.waitFor(() => expect(server.coordinator.waiting).toBe(1));
      const imported = Date.now();
      await store.importPlan(plan(planId, [task("A")]));
      const response = await pending;
      expect(response.status).toBe(200);
      expect(((await response.json()) as { task: { id: string } }).task.id).toBe("A");
      expect(Date.now() - imported).toBeLessThan(1000);
    } finally {
      await server.close();
    }
  });

  it("keeps the claim long poll's histogram in memory and serves it on GET /metrics", async () => {
    const { server } = await start();
    try {
      const planId = newPlanId();
      await store.importPlan(plan(planId, [task("A")]));
      expect((await claim(server, "w1", planId)).status).toBe(200);
      const reply = await fetch(`${server.url}/metrics`);
      expect(reply.status).toBe(200);
      const { samples, families } = await parseExposition(await reply.text());
      expect(families.get("whilly_claim_long_poll_duration_seconds")?.type).toBe("histogram");
      expect(samples.get('whilly_claim_long_poll_duration_seconds_bucket{le="+Inf"}')).toBe(1);
      expect(samples.get("whilly_claim_long_poll_duration_seconds_count")).toBe(1);
      expect(samples.get(`whilly_claims_total{plan_id="${planId}"}`)).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("never hands a task to a client that hung up while parked", async () => {
    const { server } = await start();
    try {
      const planId = newPlanId();
      const hangUp = new AbortController();
      const pending = claim(server, "w1", planId, hangUp.signal).catch((error: unknown) => error);
      await vi.waitFor(() => expect(server.coordinator.waiting).toBe(1));
      hangUp.abort();
      expect(await pending).toBeInstanceOf(Error);
      // The server notices the closed connection and unparks the claim.
      await vi.waitFor(() => expect(server.coordinator.waiting).toBe(0));
      await store.importPlan(plan(planId, [task("A")]));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await store.getTask(planId, "A"))?.status).toBe("PENDING");
      expect((await store.listEvents(planId)).filter((e) => e.eventType === "CLAIM")).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("answers parked claims with 204 on close, then stops accepting", async () => {
    const { server } = await start();
    const pending = claim(server, "w1", newPlanId());
    await vi.waitFor(() => expect(server.coordinator.waiting).toBe(1));
    const closing = Date.now();
    await server.close();
    expect((await pending).status).toBe(204);
    expect(Date.now() - closing).toBeLessThan(5000);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it("sweeps on its timer: an expired lease goes back to PENDING", async () => {
    const { server, lines } = await start({
      WHILLY_VISIBILITY_TIMEOUT: "0.2",
      WHILLY_SWEEP_INTERVAL: "0.05",
      WHILLY_HEARTBEAT_TIMEOUT: "0.3",
    });
    try {
      const planId = newPlanId();
      await store.importPlan(plan(planId, [task("A")]));
      expect((await claim(server, "w2", planId)).status).toBe(200);
      await vi.waitFor(async () => expect((await store.getTask(planId, "A"))?.status).toBe("PENDING"), {
        timeout: 5000,
      });
      expect(lines().some((l) => l.event === "sweep.released")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("sweeps nothing for a heartbeat timeout after it starts, so workers cut off by an outage can report in", async () => {
    const planId = newPlanId();
    await store.importPlan(plan(planId, [task("A")]));
    await store.upsertWorker({ workerId: "w2", hostname: "h" });
    await store.claim({ planId, workerId: "w2", leaseMs: 60_000 });
    // As if the control plane had been down: w2's last heartbeat is older than the timeout.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const { server } = await start({ WHILLY_SWEEP_INTERVAL: "0.05", WHILLY_HEARTBEAT_TIMEOUT: "1.5" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await store.getTask(planId, "A"))?.status).toBe("CLAIMED");
      const beat = await fetch(`${server.url}/workers/w2/heartbeat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ worker_id: "w2" }),
      });
      expect(beat.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await store.getTask(planId, "A"))?.status).toBe("CLAIMED");
    } finally {
      await server.close();
    }
  });

  it("refuses a port in use, leaving nothing running", async () => {
    const { server } = await start();
    try {
      const port = Number(new URL(server.url).port);
      await expect(
        startNodeServer({ store, settings: settings(), auth: inProcessAuth, port }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
    } finally {
      await server.close();
    }
  });
});
