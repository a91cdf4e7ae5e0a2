import { InvalidInput, type TaskPayload, VersionConflict } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { AgentAdapter } from "../agents/types.js";
import type { GenerationAgent } from "../generate/ask-model.js";
import type { ContradictionReport } from "../triz/ask-contradiction.js";
import { runWorkerLoop } from "./loop.js";
import {
  claimedTask,
  claimReply,
  inProgress,
  loopOptions,
  scriptedClient,
} from "./testing/scripted-client.js";
import { createTrizHook, type TrizHookOptions } from "./triz-hook.js";
import type { AgentAttempt } from "./types.js";

// The loop's own doubles (a scripted control plane); the question is a function the test controls, as
// the real one is tested with the real Claude Code CLI (ask-contradiction.real.test.ts, triz e2e).
const failed: AgentAttempt = { ok: false, reason: "no_marker", costMicroUsd: 5, aborted: false, detail: {} };
const agent: GenerationAgent = { claudeBin: "claude", model: "m", env: {}, timeoutMs: 50, killGraceMs: 0 };
const FINDING: ContradictionReport = {
  event: { eventType: "triz.contradiction", detail: { contradiction_type: "technical", reason: "r" } },
  costMicroUsd: 1_500,
};
const second: TaskPayload = { ...claimedTask, id: "T-2" };

/** A control plane that hands out T-1 then T-2, both failing for good. */
function twoFailures() {
  return scriptedClient({
    claim: [claimReply, { task: second, plan: null }, undefined],
    start: [inProgress, { ...second, status: "IN_PROGRESS", version: 2, attempts: 1 }],
    fail: [{ ...inProgress, status: "FAILED", version: 3 }],
    reportEvent: [true],
  });
}

describe("the failure analysis after a FAIL", () => {
  it("runs in the background: the next task is claimed and run while the question is still open", async () => {
    const scripted = twoFailures();
    const answers: ((report: ContradictionReport) => void)[] = [];
    let openWhileSecondRan = -1;
    const { options, events } = loopOptions(scripted.client, {
      maxTasks: 2,
      runAttempt: async ({ task }) => {
        if (task.id === "T-2") openWhileSecondRan = answers.length;
        return failed;
      },
    });
    options.afterFail = createTrizHook({
      agent,
      client: scripted.client,
      ask: () => new Promise((resolve) => answers.push(resolve)),
      onProgress: options.onProgress,
    });
    const loop = runWorkerLoop(options);
    // The loop has run both attempts and now waits for the questions: answer them.
    while (answers.length < 2) await new Promise((resolve) => setImmediate(resolve));
    for (const answer of answers) answer(FINDING);
    expect((await loop).failed).toBe(2);
    expect(openWhileSecondRan).toBe(1);
    const reports = scripted.bodies.filter((b) => b.method === "reportEvent");
    expect(reports).toHaveLength(2);
    expect(reports[0]?.body).toMatchObject({
      eventType: "triz.contradiction",
      payload: { contradiction_type: "technical", reason: "r" },
      costUsd: "0.001500",
      idempotencyKey: expect.stringMatching(/^triz:/),
    });
    expect(scripted.calls.filter((c) => c.method === "reportEvent").map((c) => c.reason)).toEqual([
      "T-1:triz.contradiction",
      "T-2:triz.contradiction",
    ]);
    expect(events.filter((e) => e.kind === "triz").map((e) => e.task.id)).toEqual(["T-1", "T-2"]);
  });

  it("reports one event per FAIL: an error, or the cost alone when no contradiction was found", async () => {
    const scripted = twoFailures();
    const reports: ContradictionReport[] = [
      { event: { eventType: "triz.error", detail: { reason: "timeout", problem: "p" } }, costMicroUsd: 0 },
      { costMicroUsd: 700 },
    ];
    const afterFail = createTrizHook({
      agent,
      client: scripted.client,
      ask: async () => reports.shift() ?? { costMicroUsd: 0 },
    });
    const { options } = loopOptions(scripted.client, {
      maxTasks: 2,
      afterFail,
      runAttempt: async () => failed,
    });
    await runWorkerLoop(options);
    expect(scripted.bodies.filter((b) => b.method === "reportEvent").map((b) => b.body)).toEqual([
      {
        eventType: "triz.error",
        payload: { reason: "timeout", problem: "p" },
        costUsd: "0.000000",
        idempotencyKey: expect.any(String),
      },
      { eventType: null, payload: {}, costUsd: "0.000700", idempotencyKey: expect.any(String) },
    ]);
  });

  it("asks nothing after a DONE, and a refused report fails open", async () => {
    const scripted = scriptedClient({
      claim: [claimReply, { task: second, plan: null }],
      start: [inProgress, { ...second, status: "IN_PROGRESS", version: 2, attempts: 1 }],
      complete: [{ ...inProgress, status: "DONE", version: 3 }],
      fail: [{ ...inProgress, status: "FAILED", version: 3 }],
      reportEvent: [new InvalidInput("body", "no")],
    });
    const asked: string[] = [];
    const hookOptions = {
      agent,
      client: scripted.client,
      ask: async (_agent, task) => {
        asked.push(task.id);
        return FINDING;
      },
    } satisfies TrizHookOptions;
    const { options, events } = loopOptions(scripted.client, {
      maxTasks: 2,
      runAttempt: async ({ task }) =>
        task.id === "T-1" ? { ...failed, ok: true, reason: undefined } : failed,
    });
    options.afterFail = createTrizHook({ ...hookOptions, onProgress: options.onProgress });
    expect(await runWorkerLoop(options)).toMatchObject({ completed: 1, failed: 1 });
    expect(asked).toEqual(["T-2"]);
    const told = events.find((e) => e.kind === "triz");
    expect(told).toMatchObject({ outcome: "unreported", error: expect.any(InvalidInput) });
  });

  it("asks nothing when the FAIL met a 409 that only looks like it landed (a lost lease)", async () => {
    const scripted = scriptedClient({
      claim: [claimReply],
      start: [inProgress],
      fail: [new VersionConflict("T-1", 2, 3, "PENDING")],
    });
    let asked = 0;
    const afterFail = createTrizHook({
      agent,
      client: scripted.client,
      ask: async () => {
        asked++;
        return FINDING;
      },
    });
    const { options } = loopOptions(scripted.client, { afterFail, runAttempt: async () => failed });
    await runWorkerLoop(options);
    expect(asked).toBe(0);
  });

  it("at shutdown waits for the question at most its bound, then stops it and reports nothing", async () => {
    const scripted = twoFailures();
    let stopped = false;
    const afterFail = createTrizHook({
      agent,
      client: scripted.client,
      reportAllowanceMs: 0,
      // A question that would never end by itself: only the drain's abort ends it, as it ends the agent.
      ask: (_agent, _task, signal) =>
        new Promise((resolve) =>
          signal?.addEventListener("abort", () => {
            stopped = true;
            resolve({ costMicroUsd: 0 });
          }),
        ),
    });
    const { options } = loopOptions(scripted.client, {
      maxTasks: 1,
      afterFail,
      runAttempt: async () => failed,
    });
    expect((await runWorkerLoop(options)).failed).toBe(1);
    expect(stopped).toBe(true);
    expect(scripted.count("reportEvent")).toBe(0);
  });

  it("asks the agent that failed the task, with its model, when that agent answers without tools", async () => {
    // Only what the choice reads of an adapter; the adapters themselves are tested with their real CLIs.
    const codex = { name: "codex", answers: true, defaultModel: "codex-default" } as AgentAdapter;
    const cmd = { name: "cmd", answers: false, defaultModel: "" } as AgentAdapter;
    const ranWith = [
      { agent: "codex", model: "gpt-x" },
      { agent: "cmd", model: "" },
      { agent: "claude", model: "claude-sonnet" },
    ];
    const scripted = scriptedClient({
      claim: [
        claimReply,
        { task: second, plan: null },
        { task: { ...second, id: "T-3" }, plan: null },
        undefined,
      ],
      start: [inProgress, { ...second, status: "IN_PROGRESS", version: 2, attempts: 1 }],
      fail: [{ ...inProgress, status: "FAILED", version: 3 }],
      reportEvent: [true],
    });
    const asked: GenerationAgent[] = [];
    let attempt = 0;
    const { options } = loopOptions(scripted.client, {
      maxTasks: 3,
      runAttempt: async () => ({ ...failed, detail: { ...ranWith[attempt++] } }),
    });
    options.afterFail = createTrizHook({
      agent,
      adapterFor: (name) => [codex, cmd].find((a) => a.name === name),
      client: scripted.client,
      ask: async (chosen) => {
        asked.push(chosen);
        return { costMicroUsd: 0 };
      },
    });
    await runWorkerLoop(options);
    expect(asked.map((a) => [a.adapter?.name, a.model])).toEqual([
      ["codex", "gpt-x"],
      [undefined, "m"],
      [undefined, "claude-sonnet"],
    ]);
  });
});
