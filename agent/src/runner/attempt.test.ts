import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPayload } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClaudeAttempt } from "./attempt.js";
import { parseClaudeSettings } from "./settings.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));

const task: TaskPayload = {
  plan_id: "demo",
  id: "DEMO-001",
  status: "CLAIMED",
  priority: "high",
  description: "Create DEMO-HELLO.md",
  dependencies: [],
  key_files: ["DEMO-HELLO.md"],
  acceptance_criteria: ["the file exists"],
  test_steps: ["test -s DEMO-HELLO.md"],
  prd_requirement: "",
  version: 1,
  attempts: 0,
  claimed_by: "w1",
  lease_expires_at: null,
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "whilly-attempt-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function attemptWith(agent: string, env: Record<string, string> = {}) {
  const settings = parseClaudeSettings({ CLAUDE_BIN: join(agents, agent) }, { isRoot: false });
  return createClaudeAttempt({
    settings,
    cwd: dir,
    timeoutMs: 20_000,
    env: { PATH: process.env.PATH, FAKE_AGENT_RECORD: join(dir, "record.json"), ...env },
  });
}

describe("createClaudeAttempt", () => {
  it("prompts with the task and the plan, and reports a success with its cost and detail", async () => {
    const run = attemptWith("success.mjs");
    const attempt = await run({
      task,
      plan: { id: "demo", name: "Demo project", agent_instructions: { before: ["Be brief."], after: [] } },
      signal: new AbortController().signal,
    });
    expect(attempt).toMatchObject({ ok: true, reason: undefined, costMicroUsd: 12_500, aborted: false });
    expect(attempt.detail).toMatchObject({ ok: true, cost_usd: "0.012500", num_turns: 2 });
    expect(attempt.detail).not.toHaveProperty("attempt");
    const prompt = JSON.parse(await readFile(join(dir, "record.json"), "utf8")).argv.at(-1) as string;
    expect(prompt).toMatch(/^Task id: DEMO-001$/m);
    expect(prompt).toContain("Demo project");
    expect(prompt).toContain("Be brief.");
  });

  it("names the plan by its id when the claim carries no plan, and reports failures", async () => {
    const attempt = await attemptWith("exit-one.mjs")({
      task,
      plan: null,
      signal: new AbortController().signal,
    });
    expect(attempt).toMatchObject({ ok: false, reason: "nonzero_exit", costMicroUsd: 12_500 });
    expect(attempt.detail).toMatchObject({ reason: "nonzero_exit", exit_code: 1 });
  });

  it("marks a run stopped by the worker's shutdown as aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const attempt = await attemptWith("success.mjs")({ task, plan: null, signal: controller.signal });
    expect(attempt).toMatchObject({ ok: false, reason: "aborted", aborted: true, costMicroUsd: 0 });
  });
});
