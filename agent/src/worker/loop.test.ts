import {
  AgentUnavailable,
  type ClaimResponse,
  type HeartbeatResponse,
  type TaskPayload,
  TransportError,
  Unauthorized,
  VersionConflict,
} from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { TaskClient } from "../client/task-client.js";
import { runWorkerLoop, type WorkerLoopOptions } from "./loop.js";
import type { AgentAttempt, ProgressEvent, RunAttempt } from "./types.js";

const claimedTask: TaskPayload = {
  plan_id: "p",
  id: "T-1",
  status: "CLAIMED",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 1,
  attempts: 0,
  claimed_by: "w1",
  lease_expires_at: null,
};
const inProgress: TaskPayload = { ...claimedTask, status: "IN_PROGRESS", version: 2, attempts: 1 };
const ok: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 10, aborted: false, detail: {} };

type Call = { method: string; version?: number; reason?: string };

/**
 * A task client whose replies are scripted per method: each call takes the next step of its method's
 * list (the last one repeats); a step is a value or an error to throw.
 */
function scriptedClient(script: Partial<Record<keyof TaskClient, unknown[]>>) {
  const calls: Call[] = [];
  const reportKeys: (string | undefined)[] = [];
  const next = (method: keyof TaskClient): unknown => {
    const steps = script[method] ?? [];
    const used = calls.filter((c) => c.method === method).length - 1;
    return steps[Math.min(used, steps.length - 1)];
  };
  const reply = async <T>(method: keyof TaskClient, call: Omit<Call, "method"> = {}): Promise<T> => {
    calls.push({ method, ...call });
    const step = next(method);
    if (step instanceof Error) throw step;
    return step as T;
  };
  const client: TaskClient = {
    claim: async (_planId, options) => {
      if (script.claim?.[0] === "park") {
        calls.push({ method: "claim" });
        return new Promise((_resolve, reject) =>
          options?.signal?.addEventListener("abort", () => reject(new TransportError("aborted", undefined))),
        );
      }
      return reply<ClaimResponse | undefined>("claim");
    },
    start: (task) => reply("start", { version: task.version }),
    complete: (task, report) => {
      reportKeys.push(report.idempotencyKey);
      return reply("complete", { version: task.version });
    },
    fail: (task, reason) => reply("fail", { version: task.version, reason }),
    release: (task, reason) => reply("release", { version: task.version, reason }),
    heartbeat: () => reply<HeartbeatResponse>("heartbeat"),
  };
  return {
    client,
    calls,
    reportKeys,
    count: (method: string) => calls.filter((c) => c.method === method).length,
  };
}

function loopOptions(client: TaskClient, overrides: Partial<WorkerLoopOptions> = {}) {
  const events: ProgressEvent[] = [];
  const options: WorkerLoopOptions = {
    client,
    planId: "p",
    runAttempt: async () => ok,
    stopSignal: new AbortController().signal,
    heartbeatIntervalMs: 60_000,
    maxTasks: 1,
    onIdle: async () => true,
    onProgress: (event) => events.push(event),
    backoff: { initialMs: 1, maxMs: 2 },
    ...overrides,
  };
  return { options, events };
}

const claimReply = { task: claimedTask, plan: null };

describe("runWorkerLoop", () => {
  it("hands back the task of an agent that cannot run (agent_unavailable) and stops with AgentUnavailable", async () => {
    const { client, calls } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...inProgress, status: "PENDING", version: 3, attempts: 0 }],
      heartbeat: [{ ok: true }],
    });
    const unavailable: AgentAttempt = {
      ok: false,
      reason: "agent_unavailable",
      costMicroUsd: 0,
      aborted: false,
      detail: {},
      unavailable: { message: "the agent cannot run: Not logged in", hint: "run `claude /login`" },
    };
    const { options, events } = loopOptions(client, { runAttempt: async () => unavailable, maxTasks: 5 });
    const error = await runWorkerLoop(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentUnavailable);
    expect(error).toMatchObject({ code: "configuration", hint: "run `claude /login`" });
    expect(calls.filter((c) => c.method !== "heartbeat")).toEqual([
      { method: "claim" },
      { method: "start", version: 1 },
      { method: "release", version: 2, reason: "agent_unavailable" },
    ]);
    expect(events.map((e) => e.kind)).toEqual(["claimed", "started", "released"]);
  });

  it("heartbeats name only the task being run, so a claim whose reply was lost is not renewed", async () => {
    const beats: (readonly string[] | undefined)[] = [];
    const { client } = scriptedClient({
      claim: [{ task: inProgress, plan: null }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    client.heartbeat = async (running) => {
      beats.push(running?.map((t) => `${t.plan_id}/${t.id}`));
      return { ok: true };
    };
    let release: () => void = () => {};
    const agentRunning = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { options } = loopOptions(client, {
      heartbeatIntervalMs: 5,
      runAttempt: async () => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        release();
        return ok;
      },
    });
    const stats = await runWorkerLoop(options);
    await agentRunning;
    expect(stats.completed).toBe(1);
    expect(beats[0]).toEqual([]);
    expect(beats).toContainEqual(["p/T-1"]);
    expect(beats.every((b) => b !== undefined)).toBe(true);
  });

  it("counts a start whose reply was lost as started, when the retry finds the task IN_PROGRESS at the next version", async () => {
    const { client, calls } = scriptedClient({
      claim: [claimReply],
      start: [
        new TransportError("socket hang up", undefined),
        new VersionConflict("T-1", 1, 2, "IN_PROGRESS"),
      ],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const { options } = loopOptions(client);
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 1, lost: 0 });
    expect(calls.filter((c) => c.method === "complete")).toEqual([{ method: "complete", version: 2 }]);
  });

  it("treats a 409 on a retried complete that shows DONE at the next version as success", async () => {
    const { client, count } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [
        new TransportError("control plane answered 503", 503),
        new VersionConflict("T-1", 2, 3, "DONE"),
      ],
      heartbeat: [{ ok: true }],
    });
    const { options, events } = loopOptions(client);
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 1, lost: 0 });
    expect(count("complete")).toBe(2);
    expect(events.map((e) => e.kind)).toEqual(["claimed", "started", "retrying", "finished"]);
  });

  it("sends one idempotency key on every retry of an attempt's report, and a new one per attempt", async () => {
    const { client, reportKeys } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [
        new TransportError("control plane answered 503", 503),
        { ...inProgress, status: "DONE", version: 3 },
        new TransportError("control plane answered 503", 503),
        { ...inProgress, status: "DONE", version: 3 },
      ],
      heartbeat: [{ ok: true }],
    });
    const { options } = loopOptions(client, { maxTasks: 2 });
    await runWorkerLoop(options);
    const keys = reportKeys;
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect([keys[1], keys[3]]).toEqual([keys[0], keys[2]]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("drops the result of a task another worker finished meanwhile (409 at a later version)", async () => {
    const { client } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [new VersionConflict("T-1", 2, 5, "DONE")],
      heartbeat: [{ ok: true }],
    });
    const { options } = loopOptions(client, { maxIterations: 1 });
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 0, lost: 1 });
  });

  it("reports a running task every progress interval while its agent works, and not after", async () => {
    const { client } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const events: ProgressEvent[] = [];
    // The agent finishes only once two `running` events came, however long that takes.
    const runAttempt: RunAttempt = async () => {
      while (events.filter((e) => e.kind === "running").length < 2)
        await new Promise((r) => setTimeout(r, 5));
      return ok;
    };
    const { options } = loopOptions(client, {
      runAttempt,
      progressIntervalMs: 1,
      onProgress: (event) => events.push(event),
    });
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 1 });
    const kinds = events.map((e) => e.kind);
    const running = events.filter((e) => e.kind === "running");
    expect(running[0]).toMatchObject({ task: { id: "T-1" } });
    expect(kinds.indexOf("running")).toBeGreaterThan(kinds.indexOf("started"));
    // The ticker stops with the agent: no `running` after the task finished.
    expect(kinds.lastIndexOf("running")).toBeLessThan(kinds.indexOf("finished"));
    const count = running.length;
    await new Promise((r) => setTimeout(r, 20));
    expect(events.filter((e) => e.kind === "running")).toHaveLength(count);
  });

  it("skips start for a task the claim already started", async () => {
    const { client, count } = scriptedClient({
      claim: [{ task: inProgress, plan: null }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const { options } = loopOptions(client);
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 1 });
    expect(count("start")).toBe(0);
  });

  it("stops on a heartbeat refused with 401: kills the agent, hands the task back, throws", async () => {
    const refused = new Unauthorized("invalid token");
    const { client, calls } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...inProgress, status: "PENDING", version: 3 }],
      heartbeat: [{ ok: true }, refused],
    });
    let agentStopped = false;
    const runAttempt: RunAttempt = ({ signal }) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          agentStopped = true;
          resolve({ ...ok, ok: false, aborted: true });
        }),
      );
    const { options, events } = loopOptions(client, { runAttempt, heartbeatIntervalMs: 5 });
    await expect(runWorkerLoop(options)).rejects.toBe(refused);
    expect(agentStopped).toBe(true);
    expect(events.filter((e) => e.kind === "lost")).toEqual([]);
    expect(calls.find((c) => c.method === "release")).toEqual({
      method: "release",
      version: 2,
      reason: "shutdown",
    });
  });

  it("reports a refused hand-back on a stop as release_failed, not as a lost result", async () => {
    const refused = new Unauthorized("invalid token");
    const { client } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [refused],
      heartbeat: [{ ok: true }, refused],
    });
    const runAttempt: RunAttempt = ({ signal }) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => resolve({ ...ok, ok: false, aborted: true })),
      );
    const { options, events } = loopOptions(client, { runAttempt, heartbeatIntervalMs: 5 });
    await expect(runWorkerLoop(options)).rejects.toBe(refused);
    expect(events.filter((e) => e.kind === "release_failed")).toMatchObject([
      { task: { id: "T-1" }, error: refused },
    ]);
    expect(events.filter((e) => e.kind === "lost")).toEqual([]);
  });

  it("on a stop while the result cannot be sent, says the task was not handed back, not that it was lost", async () => {
    const down = new TransportError("cannot reach the control plane at http://cp", undefined);
    const { client } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      heartbeat: [{ ok: true }],
    });
    const stop = new AbortController();
    let reports = 0;
    client.complete = async () => {
      if (++reports === 2) stop.abort();
      throw down;
    };
    const { options, events } = loopOptions(client, { stopSignal: stop.signal });
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 0, lost: 0 });
    expect(events.filter((e) => e.kind === "lost")).toEqual([]);
    expect(events.filter((e) => e.kind === "release_failed")).toMatchObject([
      { task: { id: "T-1" }, error: down },
    ]);
  });

  it("abandons a parked claim when stopped", async () => {
    const { client, count } = scriptedClient({ claim: ["park"], heartbeat: [{ ok: true }] });
    const stop = new AbortController();
    const { options } = loopOptions(client, { stopSignal: stop.signal, maxTasks: undefined });
    const running = runWorkerLoop(options);
    setTimeout(() => stop.abort(), 20);
    expect(await running).toMatchObject({ claimed: 0, idlePolls: 0 });
    expect(count("claim")).toBe(1);
  });

  it("stops after maxIterations claim requests, idle polls included", async () => {
    const { client, count } = scriptedClient({ claim: [undefined], heartbeat: [{ ok: true }] });
    const { options } = loopOptions(client, { maxTasks: undefined, maxIterations: 3 });
    expect(await runWorkerLoop(options)).toMatchObject({ idlePolls: 3 });
    expect(count("claim")).toBe(3);
  });
});
