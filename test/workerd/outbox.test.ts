import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { Outbox } from "../../worker-api/src/cloudflare/outbox.js";

const quiet = () => {};

describe.skipIf(!inject("workerdDatabaseUrl"))(
  "the Worker's outbox (coordinator and event-sink ports)",
  () => {
    it("sends recorded events to each plan's buffer before the request ends, in order", async () => {
      const outbox = new Outbox(env, { recheckMs: 1000 });
      const [p1, p2] = [`p-${crypto.randomUUID()}`, `p-${crypto.randomUUID()}`];
      await outbox.events.append([
        { planId: p1, eventType: "agent.output", payload: { n: 1 } },
        { planId: p2, eventType: "agent.output", payload: { n: 2 } },
        { planId: p1, eventType: "agent.output", payload: { n: 3 } },
      ]);
      const buffer = (planId: string) => env.EVENT_BUFFER.get(env.EVENT_BUFFER.idFromName(planId));
      expect(await buffer(p1).pendingCount()).toBe(0);

      await outbox.send(createExecutionContext(), quiet);
      expect(await buffer(p1).pendingCount()).toBe(2);
      expect(await buffer(p2).pendingCount()).toBe(1);
      // Flush now rather than after the run: the plans do not exist, so nothing is written.
      for (const planId of [p1, p2]) expect(await runDurableObjectAlarm(buffer(planId))).toBe(true);
      expect(await buffer(p1).pendingCount()).toBe(0);
    });

    it("wakes a claim parked on a plan once the request that notified ends", async () => {
      const outbox = new Outbox(env, { recheckMs: 30_000 });
      const planId = `p-${crypto.randomUUID()}`;
      const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
      let woken = false;
      const parked = outbox.coordinator.waitForWork(planId, 30_000, undefined).then(() => {
        woken = true;
      });
      while ((await coordinator.parkedCount()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));

      outbox.coordinator.notifyWork(planId);
      expect(await coordinator.parkedCount()).toBe(1);
      const ctx = createExecutionContext();
      await outbox.send(ctx, quiet);
      await waitOnExecutionContext(ctx);
      await parked;
      expect(woken).toBe(true);
    });

    it("ends a parked claim when its request is aborted, and drops its wait when the request ends", async () => {
      const outbox = new Outbox(env, { recheckMs: 30_000 });
      const planId = `p-${crypto.randomUUID()}`;
      const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
      const gone = new AbortController();
      const parked = outbox.coordinator.waitForWork(planId, 30_000, gone.signal);
      while ((await coordinator.parkedCount()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      gone.abort();
      await parked;
      expect(await coordinator.parkedCount()).toBe(1);
      const ctx = createExecutionContext();
      await outbox.send(ctx, quiet);
      await waitOnExecutionContext(ctx);
      expect(await coordinator.parkedCount()).toBe(0);
    });
  },
);
