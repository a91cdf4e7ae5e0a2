import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import type { NewEvent } from "../../worker-api/src/store/events/insert-events.js";
import { importChainPlan, withStore } from "./support.js";

function bufferOf(planId: string) {
  return env.EVENT_BUFFER.get(env.EVENT_BUFFER.idFromName(planId));
}

function output(planId: string, n: number): NewEvent {
  return { planId, taskId: "A", eventType: "agent.output", payload: { n, text: `line ${n}` } };
}

async function storedOutputs(planId: string): Promise<unknown[]> {
  const events = await withStore((store) => store.listEvents(planId));
  return events.filter((event) => event.eventType === "agent.output").map((event) => event.payload.n);
}

/** Asks the test's WebSocket proxy to turn down (or accept again) new Postgres connections. */
async function proxy(action: "refuse" | "accept"): Promise<void> {
  const response = await fetch(`http://${inject("neonWsProxy")}/${action}`, { method: "POST" });
  expect(response.status).toBe(204);
}

describe.skipIf(!inject("workerdDatabaseUrl"))("the EventBuffer Durable Object", () => {
  it("keeps appended events in its storage and writes them to Postgres, in order, on its alarm", async () => {
    const planId = await importChainPlan();
    const buffer = bufferOf(planId);
    expect(await buffer.append([output(planId, 1), output(planId, 2)])).toBe(2);
    expect(await buffer.append([output(planId, 3)])).toBe(3);
    const alarm = await runInDurableObject(buffer, (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(await storedOutputs(planId)).toEqual([]);

    expect(await runDurableObjectAlarm(buffer)).toBe(true);
    expect(await storedOutputs(planId)).toEqual([1, 2, 3]);
    expect(await buffer.pendingCount()).toBe(0);
  });

  it("writes nothing twice when a flush that reached Postgres runs again", async () => {
    const planId = await importChainPlan();
    const buffer = bufferOf(planId);
    await buffer.append([output(planId, 1), output(planId, 2)]);
    const rows = await runInDurableObject(buffer, (_instance, state) =>
      state.storage.sql.exec("SELECT seq, event FROM buffered ORDER BY seq").toArray(),
    );
    await runDurableObjectAlarm(buffer);
    expect(await storedOutputs(planId)).toEqual([1, 2]);

    // As if the object had stopped after Postgres committed but before it deleted the rows.
    await runInDurableObject(buffer, (_instance, state) => {
      for (const row of rows)
        state.storage.sql.exec("INSERT INTO buffered (seq, event) VALUES (?, ?)", row.seq, row.event);
    });
    const again = await runInDurableObject(buffer, (instance) => instance.flush());
    expect(again).toEqual({ written: 0, pending: 0 });
    expect(await storedOutputs(planId)).toEqual([1, 2]);

    // New events get new sequence numbers, so their keys never collide with flushed ones.
    await buffer.append([output(planId, 3)]);
    await runDurableObjectAlarm(buffer);
    expect(await storedOutputs(planId)).toEqual([1, 2, 3]);
  });

  it("keeps the events and re-arms its alarm when Postgres is unreachable, then flushes them", async () => {
    const planId = await importChainPlan();
    const buffer = bufferOf(planId);
    await buffer.append([output(planId, 1)]);
    await proxy("refuse");
    try {
      expect(await runDurableObjectAlarm(buffer)).toBe(true);
      expect(await buffer.pendingCount()).toBe(1);
    } finally {
      await proxy("accept");
    }
    // The failed flush re-armed the alarm (50 ms, then backing off): it fires on its own and writes them.
    const deadline = Date.now() + 10_000;
    while ((await buffer.pendingCount()) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await buffer.pendingCount()).toBe(0);
    expect(await storedOutputs(planId)).toEqual([1]);
  });
});
