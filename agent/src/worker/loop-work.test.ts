import type { DependencyWork } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { runWorkerLoop } from "./loop.js";
import { createPauseGate } from "./pause.js";
import {
  claimedTask,
  claimReply,
  inProgress,
  loopOptions,
  ok,
  scriptedClient,
} from "./testing/scripted-client.js";
import type { AgentAttempt } from "./types.js";

const work = { branch: "whilly-tasks/p/t-1", commit: "a".repeat(40) };
const dependency = { task_id: "T-0", branch: "whilly-tasks/p/t-0", commit: "b".repeat(40) };

describe("runWorkerLoop and a task's git work", () => {
  it("hands the claim's dependency work to the attempt and sends a DONE attempt's branch and commit", async () => {
    const { client, bodies } = scriptedClient({
      claim: [{ ...claimReply, dependency_work: [dependency] }],
      start: [inProgress],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const given: (readonly DependencyWork[] | undefined)[] = [];
    const { options } = loopOptions(client, {
      runAttempt: async ({ dependencyWork }) => {
        given.push(dependencyWork);
        return { ...ok, work };
      },
    });
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 1 });
    expect(given).toEqual([[{ taskId: "T-0", branch: dependency.branch, commit: dependency.commit }]]);
    expect(bodies[0]).toMatchObject({ method: "complete", body: { work } });
  });

  it("gives an attempt no dependency work when the server's claim reply has none", async () => {
    const { client } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const given: unknown[] = [];
    const { options } = loopOptions(client, {
      runAttempt: async ({ dependencyWork }) => {
        given.push(dependencyWork);
        return ok;
      },
    });
    await runWorkerLoop(options);
    expect(given).toEqual([[]]);
  });

  it("hands a machine fault back (workspace_unavailable, with the pause and the cost) and claims nothing for the backoff", async () => {
    const { client, calls, bodies } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      release: [{ ...claimedTask, status: "PENDING", version: 3 }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      heartbeat: [{ ok: true }],
    });
    const fault = { message: "cannot fetch whilly-tasks/p/t-0 from origin", hint: "check origin" };
    const faulted: AgentAttempt = {
      ok: false,
      reason: "workspace_unavailable",
      costMicroUsd: 2500,
      aborted: false,
      detail: {},
      fault,
    };
    const results = [faulted, ok];
    const runs: number[] = [];
    const { options, events } = loopOptions(client, {
      pause: createPauseGate({ backoffMs: 150, backoffMaxMs: 1000 }),
      runAttempt: async () => {
        runs.push(Date.now());
        return results.shift() ?? ok;
      },
    });
    const stats = await runWorkerLoop(options);
    expect(stats).toMatchObject({ completed: 1, released: 1, failed: 0, limited: 0 });
    expect(calls.filter((c) => c.method === "release")).toEqual([
      { method: "release", version: 2, reason: "workspace_unavailable" },
    ]);
    const pause = bodies.find((b) => b.method === "release")?.body as { until: Date; message: string };
    expect(pause.message).toBe(fault.message);
    expect(bodies.find((b) => b.method === "release-spend")?.body).toMatchObject({ costUsd: "0.002500" });
    const event = events.find((e) => e.kind === "faulted");
    expect(event).toMatchObject({ task: { id: "T-1" }, ...fault, until: pause.until });
    expect(pause.until.getTime() - (runs[0] ?? 0)).toBeGreaterThanOrEqual(140);
    expect(runs[1] ?? 0).toBeGreaterThanOrEqual(pause.until.getTime());
  });

  it("asks the control plane before the work goes out, and drops an attempt whose lease is gone as lost", async () => {
    const { client, calls, bodies } = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      heartbeat: [{ ok: true, renewed: 0 }],
      release: [new Error("409")],
    });
    const held: boolean[] = [];
    const { options, events } = loopOptions(client, {
      maxIterations: 1,
      runAttempt: async ({ holdsLease }) => {
        held.push((await holdsLease?.()) ?? true);
        return { ...ok, ok: false, reason: "lease_lost", costMicroUsd: 700, leaseLost: { message: "gone" } };
      },
    });
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 0, lost: 1, released: 0 });
    expect(held).toEqual([false]);
    expect(calls.map((c) => c.method)).not.toContain("complete");
    expect(calls.filter((c) => c.method === "release")).toEqual([
      { method: "release", version: 2, reason: "lease_lost" },
    ]);
    expect(bodies.find((b) => b.method === "release-spend")?.body).toMatchObject({ costUsd: "0.000700" });
    expect(events.find((e) => e.kind === "lost")).toMatchObject({
      error: { message: "gone" },
      beforeStart: false,
    });
  });
});
