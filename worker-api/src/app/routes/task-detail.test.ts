import { parsePlanObject, taskDetailResponseSchema } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { type RouteReply, routeHarness } from "../testing/route-harness.js";

// `GET /api/v1/plans/{plan}/tasks/{task}`: the task page's task, attempts and history in one read.

const OWN_SECRET = "own-secret-value-for-task-detail";
const BRANCH = "whilly/p/A";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  const plan = {
    project: "p",
    max_attempts: 3,
    tasks: [
      { id: "A", status: "pending", priority: "critical", description: "a" },
      { id: "B", status: "pending", priority: "low", description: "b" },
    ],
  };
  await store.importPlan(parsePlanObject(plan, "test"));
});

const { app, post } = routeHarness(() => store);
const target = app({
  secrets: [OWN_SECRET],
  settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000, retryBackoff: { baseMs: 0, capMs: 0 } },
});

async function claimStarted(): Promise<number> {
  const reply = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true }, target);
  expect(reply.body.task.id).toBe("A");
  return reply.body.task.version;
}

const finish = (action: string, body: Record<string, unknown>) =>
  post(`/tasks/A/${action}`, { worker_id: "w1", plan_id: "p", ...body }, target);

async function detail(path = "/api/v1/plans/p/tasks/A"): Promise<RouteReply> {
  const response = await target.request(path);
  return { status: response.status, body: await response.json() };
}

describe("GET /api/v1/plans/{plan}/tasks/{task}", () => {
  it("serves a pending task with no attempts, its creation among its events", async () => {
    const { status, body } = await detail();
    expect(status).toBe(200);
    expect(body.task).toMatchObject({
      id: "A",
      status: "PENDING",
      max_attempts: 3,
      waiting_for: null,
      last_failure: null,
      work: null,
      verification: null,
      verification_output: null,
    });
    expect(body.attempts).toEqual([]);
    expect(body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["task.created"]);
  });

  it("derives each attempt from the log: a failed check, a refunded release, a running and a done one", async () => {
    const failure = { step: "npm test", exit_code: 1, output_tail: `boom ${OWN_SECRET}` };
    let version = await claimStarted();
    expect(
      (await finish("fail", { version, reason: "verification_failed", cost_usd: "0.5", failure })).status,
    ).toBe(200);
    version = await claimStarted();
    const failedView = await detail();
    expect(failedView.body.task.last_failure).toMatchObject({
      attempt: 1,
      reason: "verification_failed",
      step: "npm test",
      exit_code: 1,
    });
    expect(failedView.body.task.verification_output).toContain("boom");
    expect(JSON.stringify(failedView.body)).not.toContain(OWN_SECRET);
    expect(failedView.body.attempts.at(-1)).toMatchObject({
      attempt: 2,
      outcome: "running",
      finished_at: null,
    });
    expect((await finish("release", { version, reason: "shutdown" })).status).toBe(200);
    version = await claimStarted();
    const done = await finish("complete", { version, cost_usd: "1.25", branch: BRANCH, commit: COMMIT });
    expect(done.status).toBe(200);

    const { status, body } = await detail();
    expect(status).toBe(200);
    expect(taskDetailResponseSchema.safeParse(body).error).toBeUndefined();
    expect(body.task).toMatchObject({
      status: "DONE",
      branch: BRANCH,
      commit: COMMIT,
      work: { branch: BRANCH, commit: COMMIT },
      spent_usd: "1.750000",
      verification_output: null,
    });
    expect(body.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        worker_id: "w1",
        agent: "claude",
        outcome: "failed",
        reason: "verification_failed",
        cost_usd: "0.500000",
      }),
      expect.objectContaining({
        attempt: 2,
        worker_id: "w1",
        outcome: "released",
        reason: "shutdown",
        cost_usd: null,
      }),
      expect.objectContaining({
        attempt: 2,
        worker_id: "w1",
        outcome: "done",
        reason: null,
        cost_usd: "1.250000",
      }),
    ]);
    for (const attempt of body.attempts) {
      expect(Date.parse(attempt.finished_at)).toBeGreaterThanOrEqual(Date.parse(attempt.started_at));
      expect(attempt.duration_ms).toBe(Date.parse(attempt.finished_at) - Date.parse(attempt.started_at));
    }
    const types = body.events.map((e: { event_type: string }) => e.event_type);
    expect(types).toEqual([
      "task.created",
      "CLAIM",
      "START",
      "FAIL",
      "CLAIM",
      "START",
      "RELEASE",
      "CLAIM",
      "START",
      "COMPLETE",
    ]);
    expect(body.events.every((e: { task_id: string }) => e.task_id === "A")).toBe(true);
  });

  it("serves at most the task's latest 200 events, oldest first", async () => {
    await store.appendEvents(
      Array.from({ length: 250 }, (_, n) => ({
        planId: "p",
        taskId: "A",
        eventType: "agent.output",
        payload: { n },
      })),
    );
    const { body } = await detail();
    expect(body.events).toHaveLength(200);
    expect(body.events[0].payload).toEqual({ n: 50 });
    expect(body.events.at(-1).payload).toEqual({ n: 249 });
  });

  it("answers 404 envelopes for a missing plan or task", async () => {
    const noPlan = await detail("/api/v1/plans/nope/tasks/A");
    expect(noPlan).toMatchObject({ status: 404, body: { error_code: "plan_not_found" } });
    const noTask = await detail("/api/v1/plans/p/tasks/Z");
    expect(noTask).toMatchObject({ status: 404, body: { error_code: "task_not_found", task_id: "Z" } });
  });
});
