import {
  completeRequestSchema,
  Forbidden,
  failRequestSchema,
  heartbeatRequestSchema,
  NotOwner,
  releaseRequestSchema,
  type TaskPayload,
  TransportError,
  Unauthorized,
  VersionConflict,
} from "@whilly/core";
import { describe, expect, it } from "vitest";
import { createTaskClient, dependencyWorkOf, type Fetch } from "./task-client.js";

const task: TaskPayload = {
  plan_id: "p 1",
  id: "T/1",
  status: "CLAIMED",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 3,
  attempts: 0,
  claimed_by: "w1",
  lease_expires_at: null,
};

function replying(status: number, body?: unknown) {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetch: Fetch = async (url, init) => {
    seen.push({ url, init });
    return new Response(body === undefined ? null : JSON.stringify(body), { status });
  };
  return { fetch, seen };
}

describe("task client", () => {
  it("sends the fenced body to an encoded task path with the bearer token", async () => {
    const { fetch, seen } = replying(200, { task: { ...task, status: "IN_PROGRESS", version: 4 } });
    const client = createTaskClient({ baseUrl: "http://cp/", fetch, workerId: "w1", token: "tok" });
    const started = await client.start(task);
    expect(started.version).toBe(4);
    expect(seen[0]?.url).toBe("http://cp/tasks/T%2F1/start");
    expect(JSON.parse(String(seen[0]?.init.body))).toEqual({ worker_id: "w1", plan_id: "p 1", version: 3 });
    const headers = (seen[0]?.init.headers ?? {}) as Record<string, string>;
    expect(headers.authorization).toBe("Bearer tok");
  });

  it("sends verification, failure, a release's pause and heartbeat progress as the protocol's schemas take them", async () => {
    const { fetch, seen } = replying(200, { task: { ...task, status: "DONE", version: 4 } });
    const client = createTaskClient({ baseUrl: "http://cp/", fetch, workerId: "w1" });
    await client.complete(task, { costUsd: "0.1", detail: {}, verification: "unverified" });
    const failure = { reason: "verification_failed", step: "npm test", exit_code: 1, session_id: undefined };
    await client.fail(task, "verification_failed", { costUsd: "0.1", detail: {}, failure });
    const until = new Date("2026-12-01T20:00:00.000Z");
    await client.release(task, "rate_limited", { until, message: "x".repeat(3000) });
    const { fetch: beatFetch, seen: beats } = replying(200, { ok: true });
    const beating = createTaskClient({ baseUrl: "http://cp/", fetch: beatFetch, workerId: "w1" });
    await beating.heartbeat([
      { task, progress: { turns: 2.5, last_tool: "T".repeat(300), phase: "agent" } },
      { task: { ...task, id: "T-2" } },
    ]);
    const [complete, fail, release] = seen.map((s) => JSON.parse(String(s.init.body)));
    expect(completeRequestSchema.parse(complete)).toMatchObject({ verification: "unverified" });
    expect(failRequestSchema.parse(fail).failure).toEqual({
      reason: "verification_failed",
      step: "npm test",
      exit_code: 1,
    });
    const released = releaseRequestSchema.parse(release);
    expect(released.paused_until).toBe("2026-12-01T20:00:00.000Z");
    expect(released.pause_message).toHaveLength(2048);
    const beat = heartbeatRequestSchema.parse(JSON.parse(String(beats[0]?.init.body)));
    expect(beat.tasks).toEqual([
      { plan_id: "p 1", task_id: "T/1", progress: { last_tool: "T".repeat(256), phase: "agent" } },
      { plan_id: "p 1", task_id: "T-2" },
    ]);
  });

  it("sends the report's idempotency key with complete and fail, and no field without one", async () => {
    const { fetch, seen } = replying(200, { task: { ...task, status: "DONE", version: 4 } });
    const client = createTaskClient({ baseUrl: "http://cp/", fetch, workerId: "w1", token: "tok" });
    await client.complete(task, { costUsd: "0.1", detail: {}, idempotencyKey: "att-1" });
    await client.fail(task, "r", { costUsd: "0.1", detail: {}, idempotencyKey: "att-2" });
    await client.complete(task, { costUsd: "0.1", detail: {} });
    const bodies = seen.map((s) => JSON.parse(String(s.init.body)));
    expect(bodies.map((b) => b.idempotency_key)).toEqual(["att-1", "att-2", undefined]);
    expect(Object.keys(bodies[2])).not.toContain("idempotency_key");
  });

  it("sends a DONE attempt's branch and commit with the completion, as the protocol takes them", async () => {
    const { fetch, seen } = replying(200, { task: { ...task, status: "DONE", version: 4 } });
    const client = createTaskClient({ baseUrl: "http://cp/", fetch, workerId: "w1" });
    const work = { branch: "whilly-tasks/p/t-1", commit: "c".repeat(40) };
    await client.complete(task, { costUsd: "0.1", detail: {}, work });
    await client.complete(task, { costUsd: "0.1", detail: {} });
    const [withWork, without] = seen.map((s) => JSON.parse(String(s.init.body)));
    expect(withWork).toMatchObject({ branch: work.branch, commit: work.commit });
    expect(completeRequestSchema.safeParse(withWork).success).toBe(true);
    expect(without).not.toHaveProperty("branch");
    expect(without).not.toHaveProperty("commit");
  });

  it("reads a claim's dependency work in order, and none from a server that sends none", async () => {
    const dependency_work = [
      { task_id: "A", branch: "whilly-tasks/p/a", commit: "a".repeat(40) },
      { task_id: "B", branch: "whilly-tasks/p/b", commit: "b".repeat(40) },
    ];
    const newer = replying(200, { task, plan: null, dependency_work });
    const claimed = await createTaskClient({
      baseUrl: "http://cp",
      fetch: newer.fetch,
      workerId: "w1",
    }).claim("p");
    expect(dependencyWorkOf(claimed ?? { task, plan: null })).toEqual([
      { taskId: "A", branch: "whilly-tasks/p/a", commit: "a".repeat(40) },
      { taskId: "B", branch: "whilly-tasks/p/b", commit: "b".repeat(40) },
    ]);
    const older = replying(200, { task, plan: null });
    const old = await createTaskClient({ baseUrl: "http://cp", fetch: older.fetch, workerId: "w1" }).claim(
      "p",
    );
    expect(old).toBeDefined();
    expect(dependencyWorkOf(old ?? { task, plan: null, dependency_work })).toEqual([]);
  });

  it("returns undefined for a 204 claim", async () => {
    const client = createTaskClient({ baseUrl: "http://cp", fetch: replying(204).fetch, workerId: "w1" });
    expect(await client.claim("p")).toBeUndefined();
  });

  it("maps a 409 envelope to VersionConflict with the actual version and status", async () => {
    const body = {
      error_code: "version_conflict",
      detail: "x",
      task_id: "T/1",
      expected_version: 3,
      actual_version: 5,
      actual_status: "DONE",
    };
    const client = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(409, body).fetch,
      workerId: "w1",
    });
    const error = await client.complete(task, { costUsd: "0.1", detail: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionConflict);
    expect(error).toMatchObject({
      taskId: "T/1",
      expectedVersion: 3,
      actualVersion: 5,
      actualStatus: "DONE",
    });
  });

  it("maps a not_owner 409 to NotOwner", async () => {
    const body = {
      error_code: "not_owner",
      detail: "x",
      task_id: "T/1",
      expected_version: 3,
      actual_version: 3,
      actual_status: "CLAIMED",
    };
    const client = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(409, body).fetch,
      workerId: "w1",
    });
    await expect(client.release(task, "shutdown")).rejects.toBeInstanceOf(NotOwner);
  });

  it("maps 401 and 403 to auth errors and 5xx to a retryable transport error", async () => {
    const envelope = { error_code: "e", detail: "nope", task_id: null };
    const c401 = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(401, envelope).fetch,
      workerId: "w1",
    });
    const c403 = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(403, envelope).fetch,
      workerId: "w1",
    });
    const c503 = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(503, envelope).fetch,
      workerId: "w1",
    });
    await expect(c401.heartbeat()).rejects.toBeInstanceOf(Unauthorized);
    await expect(c403.heartbeat()).rejects.toBeInstanceOf(Forbidden);
    const error = await c503.heartbeat().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).retryable).toBe(true);
  });

  it("turns a network failure and an unparsable 200 into transport errors", async () => {
    const down: Fetch = async () => {
      throw new TypeError("fetch failed");
    };
    const client = createTaskClient({ baseUrl: "http://cp", fetch: down, workerId: "w1" });
    await expect(client.claim("p")).rejects.toThrow(/cannot reach the control plane/);
    const garbage = createTaskClient({
      baseUrl: "http://cp",
      fetch: replying(200, { nope: 1 }).fetch,
      workerId: "w1",
    });
    await expect(garbage.claim("p")).rejects.toBeInstanceOf(TransportError);
  });
});
