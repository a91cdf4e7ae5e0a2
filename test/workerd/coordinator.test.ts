import { env, exports } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { call, importChainPlan, register, withStore } from "./support.js";

/** Polls `check` until it holds; a Durable Object's state is read through RPC, never timed. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the Coordinator Durable Object", () => {
  it("ends a wait on its timeout, and wakes parked claims oldest first, as many as notified", async () => {
    const stub = env.COORDINATOR.get(env.COORDINATOR.idFromName(`unit-${crypto.randomUUID()}`));
    await stub.waitForWork(20);
    expect(await stub.parkedCount()).toBe(0);

    const woken: number[] = [];
    const waits: Promise<void>[] = [];
    for (const n of [0, 1, 2]) {
      waits.push(stub.waitForWork(10_000).then(() => void woken.push(n)));
      await until(async () => (await stub.parkedCount()) === n + 1);
    }
    expect(await stub.notifyWork()).toBe(1);
    await until(async () => woken.length === 1);
    expect(woken).toEqual([0]);
    expect(await stub.parkedCount()).toBe(2);

    expect(await stub.notifyWork(5)).toBe(2);
    await Promise.all(waits);
    expect(woken.slice(1).sort()).toEqual([1, 2]);
    expect(await stub.notifyWork()).toBe(0);
  });
});

describe.skipIf(!inject("workerdDatabaseUrl"))("long polls on the Worker", () => {
  it("parks a claim with nothing ready and wakes it when a completion makes a task ready", async () => {
    const planId = await importChainPlan();
    const first = await register("first");
    const second = await register("second");
    const claimedA = await call(
      "POST",
      "/tasks/claim",
      { worker_id: first.workerId, plan_id: planId },
      first.token,
    );
    expect(claimedA.body.task.id).toBe("A");

    // B waits for A: the second worker's claim parks in the plan's Coordinator (claims wait up to 30 s
    // in this project, so only a wake-up answers it within the test's timeout).
    const parked = call(
      "POST",
      "/tasks/claim",
      { worker_id: second.workerId, plan_id: planId },
      second.token,
    );
    const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
    await until(async () => (await coordinator.parkedCount()) === 1);

    const done = await call(
      "POST",
      "/tasks/A/complete",
      { worker_id: first.workerId, plan_id: planId, version: claimedA.body.task.version },
      first.token,
    );
    expect(done.status).toBe(200);
    const woken = await parked;
    expect(woken.status).toBe(200);
    expect(woken.body.task).toMatchObject({ id: "B", claimed_by: second.workerId });
    expect(await coordinator.parkedCount()).toBe(0);
  });

  it("drops a parked claim whose client hung up, and never hands it a task", async () => {
    const planId = await importChainPlan();
    const first = await register("first");
    const second = await register("second");
    const claimedA = await call(
      "POST",
      "/tasks/claim",
      { worker_id: first.workerId, plan_id: planId },
      first.token,
    );

    const hangUp = new AbortController();
    const parked = exports.default.fetch("http://whilly.test/tasks/claim", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${second.token}` },
      body: JSON.stringify({ worker_id: second.workerId, plan_id: planId }),
      signal: hangUp.signal,
    });
    const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
    await until(async () => (await coordinator.parkedCount()) === 1);
    hangUp.abort();
    await expect(parked).rejects.toThrow();
    await until(async () => (await coordinator.parkedCount()) === 0);

    const fence = { worker_id: first.workerId, plan_id: planId, version: claimedA.body.task.version };
    expect((await call("POST", "/tasks/A/complete", fence, first.token)).status).toBe(200);
    const b = await withStore((store) => store.getTask(planId, "B"));
    expect(b?.status).toBe("PENDING");
  });
});
