import { createScheduledController, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, inject, it } from "vitest";
import worker from "../../worker-api/src/cloudflare/entry-workers.js";
import { call, flushEventBuffers, importChainPlan, register, withStore } from "./support.js";

/** Runs the Worker's Cron Trigger handler once, as the scheduler would. */
async function runSweep(): Promise<void> {
  await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env);
}

describe.skipIf(!inject("workerdDatabaseUrl"))("the lease sweep (Cron Trigger)", () => {
  // A sweep also takes back tasks of other files' silent workers and buffers their summaries.
  afterAll(flushEventBuffers);

  it("returns an expired lease to PENDING and hands it to a claim parked on the plan", async () => {
    const planId = await importChainPlan();
    const lost = await register("lost");
    const other = await register("other");
    // A lease of 1 ms has run out by the time the sweep reads the database clock.
    await withStore((store) => store.claim({ planId, workerId: lost.workerId, leaseMs: 1 }));

    const parked = call("POST", "/tasks/claim", { worker_id: other.workerId, plan_id: planId }, other.token);
    const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
    while ((await coordinator.parkedCount()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    await runSweep();
    const woken = await parked;
    expect(woken.status).toBe(200);
    expect(woken.body.task).toMatchObject({ id: "A", claimed_by: other.workerId });
    const release = await withStore(async (store) =>
      (await store.listEvents(planId)).find((event) => event.eventType === "RELEASE"),
    );
    expect(release?.payload).toMatchObject({ reason: "visibility_timeout", worker_id: lost.workerId });
  });

  it("marks a silent worker offline, returns its task and logs a worker.offline summary", async () => {
    const planId = await importChainPlan();
    const silent = await register("silent");
    const claimed = await call(
      "POST",
      "/tasks/claim",
      { worker_id: silent.workerId, plan_id: planId },
      silent.token,
    );
    expect(claimed.body.task.id).toBe("A");
    // This project's heartbeat timeout is 0.5 s; the lease (900 s) is still good.
    await new Promise((resolve) => setTimeout(resolve, 700));

    await runSweep();
    const state = await withStore(async (store) => ({
      task: await store.getTask(planId, "A"),
      worker: (await store.listWorkers()).find((worker) => worker.workerId === silent.workerId),
      release: (await store.listEvents(planId)).find((event) => event.eventType === "RELEASE"),
    }));
    expect(state.task?.status).toBe("PENDING");
    expect(state.task?.claimedBy).toBeUndefined();
    expect(state.worker?.status).toBe("offline");
    expect(state.release?.payload).toMatchObject({ reason: "worker_offline", worker_id: silent.workerId });

    // The summary goes through the plan's event buffer.
    expect(await runDurableObjectAlarm(env.EVENT_BUFFER.get(env.EVENT_BUFFER.idFromName(planId)))).toBe(true);
    const summary = await withStore(async (store) =>
      (await store.listEvents(planId)).find((event) => event.eventType === "worker.offline"),
    );
    expect(summary?.payload).toMatchObject({ released: ["A"] });
    expect(summary?.payload.workers).toContain(silent.workerId);
  });
});
