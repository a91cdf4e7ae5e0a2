import { AgentUnavailable, TransportError, Unauthorized, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { createTaskBudget, runWorkerLoop } from "./loop.js";
import { createPauseGate } from "./pause.js";
import { claimReply, inProgress, loopOptions, ok, scriptedClient } from "./testing/scripted-client.js";
import type { AgentAttempt, ProgressEvent, RunAttempt } from "./types.js";

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
      beats.push(running?.map(({ task: t }) => `${t.plan_id}/${t.id}`));
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

  it("a stop hands the task back with what the attempt cost and a key, so the plan's spend keeps it", async () => {
    const { client, calls, bodies } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...inProgress, status: "PENDING", version: 3, attempts: 0 }],
      heartbeat: [{ ok: true }],
    });
    const stop = new AbortController();
    // The agent finished (its cost is known), then the stop came during the checks.
    const runAttempt: RunAttempt = async () => {
      stop.abort();
      return { ...ok, ok: false, costMicroUsd: 7_000, aborted: true };
    };
    const { options } = loopOptions(client, { runAttempt, stopSignal: stop.signal });
    await runWorkerLoop(options);
    expect(calls.find((c) => c.method === "release")).toMatchObject({ reason: "shutdown" });
    expect(bodies.find((b) => b.method === "release-spend")?.body).toEqual({
      costUsd: "0.007000",
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
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

describe("runWorkerLoop with verification, retries and limits", () => {
  const failed: AgentAttempt = {
    ok: false,
    reason: "verification_failed",
    costMicroUsd: 5,
    aborted: false,
    detail: {},
    failure: { reason: "verification_failed", step: "npm test", exit_code: 1, output_tail: "1 failing" },
  };
  const limited = (until: Date | undefined): AgentAttempt => ({
    ok: false,
    reason: "rate_limited",
    costMicroUsd: 0,
    aborted: false,
    detail: {},
    limited: { message: "Request rejected (429)", until },
  });

  it("sends the attempt's verification with a completion and its failure with a fail", async () => {
    const { client, bodies } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      fail: [{ ...inProgress, status: "FAILED", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const results = [{ ...ok, verification: "unverified" as const }, failed];
    const { options } = loopOptions(client, { runAttempt: async () => results.shift() ?? ok, maxTasks: 2 });
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 1, failed: 1 });
    expect(bodies[0]).toMatchObject({ method: "complete", body: { verification: "unverified" } });
    expect(bodies[0]?.body).not.toHaveProperty("failure", expect.anything());
    expect(bodies[1]).toMatchObject({ method: "fail", body: { failure: failed.failure } });
  });

  it("counts a retried fail as taken when the 409 shows the task back PENDING at the next version (a retry)", async () => {
    const { client, count } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      fail: [new TransportError("socket hang up", undefined), new VersionConflict("T-1", 2, 3, "PENDING")],
      heartbeat: [{ ok: true }],
    });
    const { options, events } = loopOptions(client, { runAttempt: async () => failed, maxIterations: 1 });
    expect(await runWorkerLoop(options)).toMatchObject({ failed: 0, retried: 1, lost: 0 });
    expect(count("fail")).toBe(2);
    expect(events.find((e) => e.kind === "finished")).toMatchObject({ retry: true });
  });

  it("sends the attempt's activity with the heartbeat and as activity events, merged over earlier ones", async () => {
    const beats: unknown[] = [];
    const { client } = scriptedClient({
      claim: [{ task: inProgress, plan: null }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
    });
    client.heartbeat = async (running) => {
      beats.push(running?.map((r) => r.progress));
      return { ok: true };
    };
    const { options, events } = loopOptions(client, {
      heartbeatIntervalMs: 5,
      runAttempt: async ({ onActivity }) => {
        onActivity?.({ phase: "agent" });
        onActivity?.({ turns: 3, last_tool: "Edit" });
        await new Promise((resolve) => setTimeout(resolve, 40));
        return ok;
      },
    });
    await runWorkerLoop(options);
    expect(events.filter((e) => e.kind === "activity").map((e) => e.progress)).toEqual([
      { phase: "agent" },
      { phase: "agent", turns: 3, last_tool: "Edit" },
    ]);
    expect(beats).toContainEqual([{ phase: "agent", turns: 3, last_tool: "Edit" }]);
  });

  it("hands a limited attempt back (rate_limited, with the pause) and claims nothing until the reset time", async () => {
    const { client, calls, bodies } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...inProgress, status: "PENDING", version: 3, attempts: 0 }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const resetAt = new Date(Date.now() + 60);
    const results = [limited(resetAt), ok];
    let claimedAgainAt = 0;
    const { options, events } = loopOptions(client, {
      runAttempt: async () => {
        if (results.length === 1) claimedAgainAt = Date.now();
        return results.shift() ?? ok;
      },
    });
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 1, released: 1, limited: 1 });
    expect(calls.find((c) => c.method === "release")).toMatchObject({ reason: "rate_limited" });
    expect(bodies.find((b) => b.method === "release")?.body).toEqual({
      until: resetAt,
      message: "Request rejected (429)",
    });
    expect(events.find((e) => e.kind === "paused")).toMatchObject({
      task: { id: "T-1" },
      until: resetAt,
      message: "Request rejected (429)",
    });
    expect(claimedAgainAt).toBeGreaterThanOrEqual(resetAt.getTime());
  });

  it("shares one pause between loops: a limit met by one stops the other's claims, and `stop` ends them", async () => {
    const gate = createPauseGate({ backoffMs: 60_000, backoffMaxMs: 120_000 });
    const first = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...inProgress, status: "PENDING", version: 3, attempts: 0 }],
      heartbeat: [{ ok: true }],
    });
    const a = loopOptions(first.client, {
      runAttempt: async () => limited(undefined),
      pause: gate,
      whenPaused: "stop",
      maxTasks: undefined,
    });
    expect(await runWorkerLoop(a.options)).toMatchObject({ claimed: 1, limited: 1 });
    const paused = a.events.find((e) => e.kind === "paused");
    // No reset time named: the first backoff.
    expect(paused?.kind === "paused" && paused.until.getTime() - Date.now()).toBeGreaterThan(50_000);
    const second = scriptedClient({ claim: [claimReply], heartbeat: [{ ok: true }] });
    const b = loopOptions(second.client, { pause: gate, whenPaused: "stop" });
    expect(await runWorkerLoop(b.options)).toMatchObject({ claimed: 0 });
    expect(second.count("claim")).toBe(0);
  });
});

describe("runWorkerLoop's shared task budget", () => {
  it("lets loops sharing a budget of one finish one task between them, giving back what found nothing", async () => {
    const budget = createTaskBudget(1);
    const idle = scriptedClient({ claim: [undefined], heartbeat: [{ ok: true }] });
    const busy = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    let idleCalls = 0;
    const first = loopOptions(idle.client, {
      taskBudget: budget,
      maxTasks: undefined,
      onIdle: async () => ++idleCalls < 3,
    });
    expect(await runWorkerLoop(first.options)).toMatchObject({ idlePolls: 3 });
    const second = loopOptions(busy.client, { taskBudget: budget, maxTasks: undefined });
    expect(await runWorkerLoop(second.options)).toMatchObject({ completed: 1 });
    expect(budget.take()).toBe(false);
    expect(busy.count("claim")).toBe(1);
  });
});
