import { describe, expect, inject, it } from "vitest";
import { BOOTSTRAP_TOKEN, call, importChainPlan, register, withStore } from "./support.js";

describe.skipIf(!inject("workerdDatabaseUrl"))("protocol v1 on the Worker", () => {
  it("answers /health after a query through the Neon driver", async () => {
    const reply = await call("GET", "/health");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "ok" });
  });

  it("registers a worker, which claims, starts and completes a task with its own token", async () => {
    const planId = await importChainPlan();
    const { workerId, token } = await register();

    const claimed = await call("POST", "/tasks/claim", { worker_id: workerId, plan_id: planId }, token);
    expect(claimed.status).toBe(200);
    expect(claimed.body.task).toMatchObject({
      id: "A",
      plan_id: planId,
      status: "CLAIMED",
      claimed_by: workerId,
    });

    const fence = { worker_id: workerId, plan_id: planId };
    const started = await call(
      "POST",
      "/tasks/A/start",
      { ...fence, version: claimed.body.task.version },
      token,
    );
    expect(started.status).toBe(200);
    expect(started.body.task.status).toBe("IN_PROGRESS");

    const done = await call(
      "POST",
      "/tasks/A/complete",
      { ...fence, version: started.body.task.version, cost_usd: "0.25" },
      token,
    );
    expect(done.status).toBe(200);
    expect(done.body.task.status).toBe("DONE");

    const stored = await withStore(async (store) => ({
      task: await store.getTask(planId, "A"),
      plan: await store.getPlan(planId),
      events: (await store.listEvents(planId)).map((event) => event.eventType),
    }));
    expect(stored.task?.status).toBe("DONE");
    expect(stored.plan?.spentMicroUsd).toBe(250_000);
    expect(stored.events).toEqual(expect.arrayContaining(["CLAIM", "START", "COMPLETE"]));
  });

  it("answers 409 with the actual version and status to a stale version, changing nothing", async () => {
    const planId = await importChainPlan();
    const { workerId, token } = await register();
    const claimed = await call("POST", "/tasks/claim", { worker_id: workerId, plan_id: planId }, token);
    const fence = { worker_id: workerId, plan_id: planId };
    const version = claimed.body.task.version;
    await call("POST", "/tasks/A/start", { ...fence, version }, token);

    const stale = await call("POST", "/tasks/A/complete", { ...fence, version }, token);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      task_id: "A",
      expected_version: version,
      actual_version: version + 1,
      actual_status: "IN_PROGRESS",
    });
    const task = await withStore((store) => store.getTask(planId, "A"));
    expect(task).toMatchObject({ status: "IN_PROGRESS", version: version + 1 });
  });

  it("refuses task routes without a worker's bearer, and the bootstrap token there too", async () => {
    const planId = await importChainPlan();
    const { workerId } = await register();
    const body = { worker_id: workerId, plan_id: planId };
    expect((await call("POST", "/tasks/claim", body)).status).toBe(401);
    expect((await call("POST", "/tasks/claim", body, BOOTSTRAP_TOKEN)).status).toBe(401);
  });
});
