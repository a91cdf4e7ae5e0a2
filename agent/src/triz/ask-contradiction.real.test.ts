import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerationAgent } from "../generate/ask-model.js";
import { askContradiction } from "./ask-contradiction.js";

// The real Claude Code CLI (the pinned devDependency) against the scripted fake model, which plays its
// `generate.triz` story for the question; each test sets the story it needs.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const claude = join(root, "node_modules/.bin/claude");
const FINDING = {
  contradictory: true,
  contradiction_type: "technical",
  reason: "Faster means less exact here.",
};

let fake: FakeAnthropic;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-triz-test-"));
  await mkdir(join(work, "home"));
  fake = await startFakeAnthropic({ script: {} });
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

const agent = (timeoutMs: number): GenerationAgent => ({
  claudeBin: claude,
  model: "claude-sonnet-4-6",
  env: fakeClaudeEnv({ baseUrl: fake.url, home: join(work, "home") }),
  timeoutMs,
  killGraceMs: 300,
});
const STORIES = {
  FOUND: { turns: [{ text: `\`\`\`json\n${JSON.stringify(FINDING)}\n\`\`\`` }] },
  SLOW: { turns: [{ text: JSON.stringify(FINDING), delay_ms: 20_000 }] },
  GARBLED: { turns: [{ text: "Yes, there is a contradiction between speed and accuracy." }] },
};
/** The task `id`, with the fake set to answer the question with its story. */
const task = (id: keyof typeof STORIES) => {
  fake.setScript({ generate: { triz: STORIES[id] } });
  return plainTask(id);
};
const plainTask = (id: string) => ({
  id,
  description: "Make the search both instant and exact over every record.",
  acceptanceCriteria: ["answers in 1 ms", "never misses a record"],
});

describe("askContradiction with the real Claude Code CLI", () => {
  it("reports a contradiction the model finds, with what the call cost, asked without tools", async () => {
    const report = await askContradiction(agent(30_000), task("FOUND"));
    expect(report.event).toEqual({
      eventType: "triz.contradiction",
      detail: { contradiction_type: "technical", reason: "Faster means less exact here." },
    });
    expect(report.costMicroUsd).toBeGreaterThan(0);
    const asked = fake.requests().filter((r) => r.kind === "agent" && r.script === "generate:triz");
    expect(asked.map((r) => r.tools)).toEqual([[]]);
    expect(asked[0]?.prompt).toContain("<UNTRUSTED kind=task_description>\nMake the search");
  });

  it("gives one triz.error when the model does not answer in time", async () => {
    const started = performance.now();
    const report = await askContradiction(agent(2_000), task("SLOW"));
    expect(report.event).toEqual({
      eventType: "triz.error",
      detail: { reason: "timeout", problem: expect.any(String) },
    });
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it("gives one triz.error for an answer that is not the agreed JSON", async () => {
    const report = await askContradiction(agent(30_000), task("GARBLED"));
    expect(report.event).toEqual({
      eventType: "triz.error",
      detail: { reason: "malformed_answer", problem: "the answer is not JSON" },
    });
    expect(report.costMicroUsd).toBeGreaterThan(0);
  });

  it("gives one triz.error when the agent CLI is not installed", async () => {
    const report = await askContradiction(
      { ...agent(30_000), claudeBin: join(work, "no-claude") },
      task("FOUND"),
    );
    expect(report).toEqual({
      event: { eventType: "triz.error", detail: { reason: "agent_missing", problem: expect.any(String) } },
      costMicroUsd: 0,
    });
  });
});
