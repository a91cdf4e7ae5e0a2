import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inProcessAuth } from "../../auth/in-process.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  await store.upsertWorker({ workerId: "w2", hostname: "h" });
  const plan = parsePlanObject(
    {
      project: "p",
      tasks: [
        { id: "A", status: "pending", priority: "low", description: "a" },
        { id: "B", status: "pending", priority: "critical", description: "b", dependencies: ["A"] },
      ],
    },
    "test",
  );
  await store.importPlan(plan);
});

const { app, post } = routeHarness(() => store);

describe("task routes", () => {
  it("claims the ready task with its plan context, then 204 when nothing else is ready", async () => {
    const first = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    expect(first.status).toBe(200);
    expect(first.body.task).toMatchObject({
      id: "A",
      plan_id: "p",
      status: "CLAIMED",
      claimed_by: "w1",
      // An older worker's claim (no capabilities): Claude Code, its default model.
      agent: "claude",
      model: null,
      required_tags: [],
    });
    expect(first.body.plan).toEqual({
      id: "p",
      name: "p",
      agent_instructions: { before: [], after: [] },
      verify: [],
      setup: null,
      agent: null,
      model: null,
      fallback_agents: [],
    });
    expect(Date.parse(first.body.task.lease_expires_at)).toBeGreaterThan(Date.now());
    // B outranks A but waits for it: dependencies gate claims.
    expect((await post("/tasks/claim", { worker_id: "w2", plan_id: "p" })).status).toBe(204);
  });

  it("walks claim → start → complete, adds the cost exactly and makes dependents ready", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const started = await post("/tasks/A/start", {
      worker_id: "w1",
      plan_id: "p",
      version: body.task.version,
    });
    expect(started.body.task).toMatchObject({ status: "IN_PROGRESS", attempts: 1 });
    const done = await post("/tasks/A/complete", {
      worker_id: "w1",
      version: started.body.task.version,
      cost_usd: "0.123456",
      detail: { session_id: "s" },
    });
    expect(done.status).toBe(200);
    expect(done.body.task.status).toBe("DONE");
    expect((await store.getPlan("p"))?.spentMicroUsd).toBe(123_456);
    const next = await post("/tasks/claim", { worker_id: "w2", plan_id: "p" });
    expect(next.body.task.id).toBe("B");
  });

  it("a release with reason agent_unavailable or shutdown gives the attempt back; another keeps it", async () => {
    const run = async (reason: string) => {
      const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
      const started = await post("/tasks/A/start", {
        worker_id: "w1",
        plan_id: "p",
        version: body.task.version,
      });
      return post("/tasks/A/release", {
        worker_id: "w1",
        plan_id: "p",
        version: started.body.task.version,
        reason,
      });
    };
    const refunded = await run("agent_unavailable");
    expect(refunded.status).toBe(200);
    expect(refunded.body.task).toMatchObject({ status: "PENDING", attempts: 0 });
    const stopped = await run("shutdown");
    expect(stopped.body.task).toMatchObject({ status: "PENDING", attempts: 0 });
    const kept = await run("handed back");
    expect(kept.body.task).toMatchObject({ status: "PENDING", attempts: 1 });
  });

  it("answers a stale version with 409 and the actual version and status", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const stale = await post("/tasks/A/complete", {
      worker_id: "w1",
      plan_id: "p",
      version: body.task.version - 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      error_code: "version_conflict",
      task_id: "A",
      expected_version: body.task.version - 1,
      actual_version: body.task.version,
      actual_status: "CLAIMED",
    });
    expect((await store.getTask("p", "A"))?.status).toBe("CLAIMED");
  });

  it("refuses another worker's task with 409 and changes nothing", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const theft = await post("/tasks/A/fail", {
      worker_id: "w2",
      plan_id: "p",
      version: body.task.version,
      reason: "x",
    });
    expect(theft.status).toBe(409);
    expect(theft.body.error_code).toBe("not_owner");
    const task = await store.getTask("p", "A");
    expect(task).toMatchObject({ status: "CLAIMED", claimedBy: "w1", version: body.task.version });
  });

  it("resolves a task id without plan_id among the worker's own claims, 404 otherwise", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const released = await post("/tasks/A/release", {
      worker_id: "w1",
      version: body.task.version,
      reason: "shutdown",
    });
    expect(released.body.task).toMatchObject({ status: "PENDING", claimed_by: null });
    const missing = await post("/tasks/A/release", { worker_id: "w2", version: 0, reason: "shutdown" });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error_code: "task_not_found", task_id: "A" });
  });

  it("refuses a task id without plan_id that the worker holds in two plans, telling it to send plan_id", async () => {
    const other = parsePlanObject(
      { project: "q", tasks: [{ id: "A", status: "pending", priority: "low", description: "a" }] },
      "test",
    );
    await store.importPlan(other);
    const inP = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const inQ = await post("/tasks/claim", { worker_id: "w1", plan_id: "q" });
    expect([inP.body.task.id, inQ.body.task.id]).toEqual(["A", "A"]);
    for (const route of ["start", "complete", "fail", "release"]) {
      const body = { worker_id: "w1", version: inQ.body.task.version, reason: "r" };
      const { reason: _, ...fence } = body;
      const reply = await post(`/tasks/A/${route}`, route === "fail" || route === "release" ? body : fence);
      expect(reply.status).toBe(422);
      expect(reply.body.error_code).toBe("invalid_input");
      expect(reply.body.detail).toBe(
        "worker 'w1' holds task 'A' in 2 plans ('p', 'q'); send plan_id to say which",
      );
    }
    expect((await store.getTask("p", "A"))?.status).toBe("CLAIMED");
    expect((await store.getTask("q", "A"))?.status).toBe("CLAIMED");
    const named = await post("/tasks/A/start", {
      worker_id: "w1",
      plan_id: "q",
      version: inQ.body.task.version,
    });
    expect(named.body.task).toMatchObject({ plan_id: "q", status: "IN_PROGRESS" });
  });

  it("rejects bad bodies with 422 naming the field", async () => {
    const noVersion = await post("/tasks/A/complete", { worker_id: "w1", plan_id: "p" });
    expect(noVersion.status).toBe(422);
    expect(noVersion.body.detail).toContain("version");
    const unknown = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", extra: 1 });
    expect(unknown.status).toBe(422);
    const badCost = await post("/tasks/A/complete", {
      worker_id: "w1",
      plan_id: "p",
      version: 1,
      cost_usd: "-1",
    });
    expect(badCost.status).toBe(422);
    const hugeVersion = await post("/tasks/A/start", { worker_id: "w1", plan_id: "p", version: 2 ** 31 });
    expect(hugeVersion.status).toBe(422);
    expect(hugeVersion.body.detail).toContain("version");
    const notJson = await app().request("/tasks/claim", { method: "POST", body: "{" });
    expect(notJson.status).toBe(422);
    expect(((await notJson.json()) as { error_code: string }).error_code).toBe("invalid_input");
  });

  it("refuses a cost_usd outside 0 to 99999999.999999 with 422 naming the field and the range", async () => {
    const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
    const fence = { worker_id: "w1", plan_id: "p", version: body.task.version };
    for (const cost_usd of ["100000000", 1e30, "99999999.9999995", -0.5]) {
      const reply = await post("/tasks/A/complete", { ...fence, cost_usd });
      expect(reply.status).toBe(422);
      expect(reply.body.error_code).toBe("invalid_input");
      expect(reply.body.detail).toContain("cost_usd");
      expect(reply.body.detail).toContain("0 to 99999999.999999");
    }
    const fail = await post("/tasks/A/fail", { ...fence, reason: "r", cost_usd: "1e9" });
    expect(fail.status).toBe(422);
    expect(fail.body.detail).toContain("0 to 99999999.999999");
    expect((await store.getTask("p", "A"))?.status).toBe("CLAIMED");
  });

  it("completes a task whose cost takes the plan's spend past what NUMERIC(14,6) holds", async () => {
    const a = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true });
    const first = { worker_id: "w1", plan_id: "p", version: a.body.task.version };
    expect((await post("/tasks/A/complete", { ...first, cost_usd: "99999999.999999" })).status).toBe(200);
    const b = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true });
    const second = { worker_id: "w1", plan_id: "p", version: b.body.task.version };
    const done = await post("/tasks/B/complete", { ...second, cost_usd: 1 });
    expect(done.status).toBe(200);
    expect(done.body.task.status).toBe("DONE");
    expect((await store.getPlan("p"))?.spentMicroUsd).toBe(99_999_999_999_999);
  });

  it("lets a per-worker identity act only as itself (403)", async () => {
    const bound = app({ auth: { ...inProcessAuth, authenticateWorker: async () => ({ workerId: "w1" }) } });
    const forged = await post("/tasks/claim", { worker_id: "w2", plan_id: "p" }, bound);
    expect(forged.status).toBe(403);
    expect(forged.body.error_code).toBe("worker_id_mismatch");
  });

  it("refuses a body over 1 MiB with 413 before reading it all", async () => {
    const huge = JSON.stringify({ worker_id: "w1", plan_id: "p", padding: "x".repeat(1024 * 1024) });
    const reply = await app().request("/tasks/claim", { method: "POST", body: huge });
    expect(reply.status).toBe(413);
    expect(((await reply.json()) as { error_code: string }).error_code).toBe("payload_too_large");
  });

  it("hides internal errors behind a generic 500 envelope", async () => {
    const broken = app({
      withStore: async () => {
        throw new Error("password=hunter2 leaked?");
      },
    });
    const reply = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" }, broken);
    expect(reply.status).toBe(500);
    expect(JSON.stringify(reply.body)).not.toContain("hunter2");
    expect(reply.body.error_code).toBe("internal_error");
  });
});
