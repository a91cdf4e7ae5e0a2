import { type FakeAnthropic, fakeClaudeEnv } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, makeStoreTemplate, removeAll, runCli, scratchDir, withStore } from "../support/cli.js";
import { CLAUDE, eventsOfTask, repoFrom, SHORT_WAITS, startFake, writePlan } from "./attempts-support.js";

// The failure analysis after a FAIL (docs/triz.md#on-a-failed-task) through the real worker loop of an
// in-process `whilly run`: the task fails at once (its setup command fails, so no agent runs and the
// attempt costs nothing), then the REAL Claude Code CLI against the scripted fake model answers the
// question as the test's `generate.triz` story says.
const FINDING = { contradictory: true, contradiction_type: "technical", reason: "Faster means less exact." };
const STORIES = {
  found: { turns: [{ text: JSON.stringify(FINDING) }] },
  slow: { turns: [{ text: JSON.stringify(FINDING), delay_ms: 20_000 }] },
  garbled: { turns: [{ text: "Yes, speed and accuracy pull apart." }] },
};

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFake({ default: { turns: [{ text: "I could not do this one." }] } }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

/** `whilly run` of one task that fails for good, with the analysis on and the question's story `story`. */
async function failOnce(planId: string, story: keyof typeof STORIES, timeout = "30s") {
  fake.setScript({
    default: { turns: [{ text: "I could not do this one." }] },
    generate: { triz: STORIES[story] },
  });
  const repo = repoFrom(template);
  writePlan(repo, planId, [{ id: "T-1" }], { max_attempts: 1 });
  const env = baseEnv({
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-") }),
    CLAUDE_BIN: CLAUDE,
    WHILLY_MODEL: "claude-sonnet-4-6",
    ...SHORT_WAITS,
    WHILLY_TRIZ_ENABLED: "1",
    WHILLY_TRIZ_TIMEOUT: timeout,
  });
  const result = await runCli(["run", "tasks.json", "--setup", "false"], { cwd: repo, env });
  expect(result.code, result.out + result.err).toBe(1);
  const { tasks, events, spent } = await withStore(repo, async (store) => ({
    tasks: await store.listTasks(planId),
    events: await store.listEvents(planId, { limit: 1000 }),
    spent: (await store.getPlan(planId))?.spentMicroUsd ?? -1,
  }));
  const triz = events.filter((e) => e.eventType.startsWith("triz."));
  const fail = eventsOfTask(events, "T-1", "FAIL")[0];
  expect(fail?.payload).toMatchObject({ reason: "setup_failed", cost_usd: "0.000000" });
  return { result, tasks, triz, spent };
}

describe("whilly run asks about a task's contradiction after its FAIL", () => {
  it("records the finding as triz.contradiction and counts the question's cost to the plan", async () => {
    const { result, tasks, triz, spent } = await failOnce("found", "found");
    expect(triz.map((e) => [e.taskId, e.eventType, e.payload])).toEqual([
      [
        "T-1",
        "triz.contradiction",
        { contradiction_type: "technical", reason: FINDING.reason, worker_id: expect.any(String) },
      ],
    ]);
    // The attempt cost nothing: what the task and the plan spent is the question's cost.
    expect(spent).toBeGreaterThan(0);
    expect(tasks[0]?.spentMicroUsd).toBe(spent);
    expect(result.err).toContain("T-1 failure analysis: triz.contradiction (Faster means less exact.)");
  }, 60_000);

  it("fails open with one triz.error when the model does not answer within WHILLY_TRIZ_TIMEOUT", async () => {
    const { triz } = await failOnce("slow", "slow", "1s");
    expect(triz.map((e) => [e.eventType, e.payload.reason])).toEqual([["triz.error", "timeout"]]);
  }, 60_000);

  it("fails open with one triz.error for an answer that is not the agreed JSON", async () => {
    const { triz } = await failOnce("garbled", "garbled");
    expect(triz.map((e) => [e.eventType, e.payload.reason])).toEqual([["triz.error", "malformed_answer"]]);
  }, 60_000);
});
