import { describe, expect, it } from "vitest";
import type { ClaimOptions } from "../client/task-client.js";
import { createCapabilities } from "./capabilities.js";
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

const limitedOn = (agent: string): AgentAttempt => ({
  ok: false,
  reason: "rate_limited",
  costMicroUsd: 0,
  aborted: false,
  detail: { agent, model: "m" },
  limited: { message: "You've hit your limit", until: new Date(Date.now() + 3_600_000) },
});

function setup(agents: string[], routed = true) {
  const agent = routed ? { agent: "claude", model: null } : {};
  const { client, calls } = scriptedClient({
    claim: [{ ...claimReply, task: { ...claimReply.task, ...agent } }],
    start: [{ ...inProgress, ...agent }],
    release: [{ ...claimedTask, status: "PENDING", version: 3 }],
    complete: [{ ...inProgress, status: "DONE", version: 3 }],
    heartbeat: [{ ok: true }],
  });
  const sent: (ClaimOptions | undefined)[] = [];
  const claim = client.claim;
  client.claim = (planId, options) => {
    sent.push(options);
    return claim(planId, options);
  };
  const gate = createPauseGate({ backoffMs: 60_000, backoffMaxMs: 3_600_000 });
  const capabilities = createCapabilities({
    agents,
    tags: ["gpu"],
    backoffMs: 60_000,
    backoffMaxMs: 3_600_000,
  });
  return { client, calls, sent, gate, capabilities };
}

describe("runWorkerLoop with several agents", () => {
  it("on a usage limit pauses that agent alone and goes on claiming for the others", async () => {
    const { client, sent, gate, capabilities } = setup(["claude", "cmd"]);
    const results = [limitedOn("claude"), ok];
    const { options, events } = loopOptions(client, {
      pause: gate,
      capabilities,
      choice: { agent: "cmd" },
      runAttempt: async () => results.shift() ?? ok,
    });
    expect(await runWorkerLoop(options)).toMatchObject({ limited: 1, completed: 1 });
    expect(sent.map((o) => o?.capabilities)).toEqual([
      { agents: ["claude", "cmd"], tags: ["gpu"] },
      { agents: ["cmd"], tags: ["gpu"] },
    ]);
    expect(sent[0]?.choice).toEqual({ agent: "cmd" });
    expect(gate.pausedUntil()).toBeUndefined();
    expect(events.find((e) => e.kind === "paused")).toMatchObject({ agent: "claude" });
  });

  it("with a control plane that does not name the task's agent pauses the whole worker, as before", async () => {
    const { client, gate, capabilities } = setup(["claude", "cmd"], false);
    const { options } = loopOptions(client, {
      pause: gate,
      capabilities,
      whenPaused: "stop",
      runAttempt: async () => limitedOn("claude"),
    });
    expect(await runWorkerLoop(options)).toMatchObject({ limited: 1 });
    expect(gate.pausedUntil()).toBeDefined();
    expect(capabilities.advertised().agents).toEqual(["claude", "cmd"]);
  });

  it("with no other agent left pauses the whole worker, as with one agent", async () => {
    const { client, gate, capabilities } = setup(["claude"]);
    const { options, events } = loopOptions(client, {
      pause: gate,
      capabilities,
      whenPaused: "stop",
      runAttempt: async () => limitedOn("claude"),
    });
    expect(await runWorkerLoop(options)).toMatchObject({ limited: 1, completed: 0 });
    expect(gate.pausedUntil()).toBeDefined();
    expect(events.find((e) => e.kind === "paused")).not.toHaveProperty("agent");
    expect(capabilities.advertised().agents).toEqual(["claude"]);
  });
});
