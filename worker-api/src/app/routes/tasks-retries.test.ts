import { type PlanSpec, planTasksResponseSchema, type TaskSpec } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

const task = (id: string, extra: Partial<TaskSpec> = {}): TaskSpec => ({
  id,
  status: "PENDING",
  priority: "medium",
  description: id,
  dependencies: [],
  keyFiles: [],
  acceptanceCriteria: [],
  testSteps: [],
  prdRequirement: "",
  version: 0,
  extra: {},
  ...extra,
});

const spec: PlanSpec = {
  id: "p",
  name: "p",
  tasks: [task("A"), task("B", { maxAttempts: 1 })],
  agentInstructions: {},
  keptInstructions: {},
  extra: {},
  verify: ["npm test"],
  setup: "npm ci",
  maxAttempts: 2,
};

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  await store.importPlan(spec);
});

const { app, post } = routeHarness(() => store);
/** Retries claimable at once, so a test needs no wait. */
const noBackoff = app({
  settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000, retryBackoff: { baseMs: 0, capMs: 0 } },
});

async function claimStarted(target = noBackoff) {
  const { body } = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true }, target);
  return body;
}

describe("retries over the protocol", () => {
  it("a claim carries the plan's checks and the task's limit; a fail with a failure retries and the next claim carries it", async () => {
    const first = await claimStarted();
    expect(first.plan).toMatchObject({ verify: ["npm test"], setup: "npm ci" });
    expect(first.task).toMatchObject({ id: "A", max_attempts: 2, not_before: null, previous_failure: null });
    const failed = await post(
      "/tasks/A/fail",
      {
        worker_id: "w1",
        plan_id: "p",
        version: first.task.version,
        reason: "verification_failed",
        failure: { step: "npm test", exit_code: 1, output_tail: "boom", attempt: 99, junk: true },
      },
      noBackoff,
    );
    expect(failed.status).toBe(200);
    expect(failed.body.task).toMatchObject({ status: "PENDING", attempts: 1 });
    const second = await claimStarted();
    expect(second.task.previous_failure).toEqual({
      attempt: 1,
      worker_id: "w1",
      reason: "verification_failed",
      step: "npm test",
      exit_code: 1,
      output_tail: "boom",
    });
  });

  it("the server's backoff setting holds the retry back", async () => {
    const hour = app({
      settings: {
        leaseMs: 60_000,
        claimWaitMs: 0,
        claimRecheckMs: 1000,
        retryBackoff: { baseMs: 3_600_000, capMs: 3_600_000 },
      },
    });
    const first = await claimStarted(hour);
    const fence = { worker_id: "w1", plan_id: "p", version: first.task.version, reason: "no_marker" };
    const failed = await post("/tasks/A/fail", fence, hour);
    expect(Date.parse(failed.body.task.not_before)).toBeGreaterThan(Date.now() + 3_000_000);
    // A waits; B is next.
    expect((await claimStarted(hour)).task.id).toBe("B");
  });

  it("complete stores the verification the worker reports; the read API shows it", async () => {
    const first = await claimStarted();
    const done = await post("/tasks/A/complete", {
      worker_id: "w1",
      plan_id: "p",
      version: first.task.version,
      verification: "unverified",
    });
    expect(done.body.task).toMatchObject({ status: "DONE", verification: "unverified" });
    const listed = planTasksResponseSchema.parse(await (await app().request("/api/v1/plans/p/tasks")).json());
    expect(listed.tasks.map((t) => [t.id, t.verification, t.max_attempts])).toEqual([
      ["A", "unverified", 2],
      ["B", null, 1],
    ]);
    const bad = await post("/tasks/B/complete", {
      worker_id: "w1",
      plan_id: "p",
      version: 0,
      verification: "sure",
    });
    expect(bad.status).toBe(422);
  });

  it("a rate-limited release with paused_until gives the attempt back and records worker.paused", async () => {
    const first = await claimStarted();
    const released = await post("/tasks/A/release", {
      worker_id: "w1",
      plan_id: "p",
      version: first.task.version,
      reason: "rate_limited",
      paused_until: "2030-01-01T20:00:00Z",
      pause_message: "limit reached",
    });
    expect(released.body.task).toMatchObject({ status: "PENDING", attempts: 0 });
    const paused = (await store.listEvents("p")).find((e) => e.eventType === "worker.paused");
    expect(paused?.payload).toEqual({
      worker_id: "w1",
      reason: "rate_limited",
      until: "2030-01-01T20:00:00.000Z",
      message: "limit reached",
    });
  });

  it("a heartbeat's progress is stored on the task", async () => {
    await claimStarted();
    const beat = await post("/workers/w1/heartbeat", {
      worker_id: "w1",
      tasks: [{ plan_id: "p", task_id: "A", progress: { turns: 4, last_tool: "Edit", phase: "agent" } }],
    });
    expect(beat.body).toMatchObject({ ok: true, renewed: 1 });
    expect((await store.getTask("p", "A"))?.progress).toEqual({
      turns: 4,
      last_tool: "Edit",
      phase: "agent",
    });
  });
});
