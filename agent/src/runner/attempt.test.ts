import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPayload } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClaudeAgent, createClaudeAttempt } from "./attempt.js";
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

describe("createClaudeAgent", () => {
  const agentWith = (agent: string, env: Record<string, string> = {}) =>
    createClaudeAgent({
      settings: parseClaudeSettings({ CLAUDE_BIN: join(agents, agent) }, { isRoot: false }),
      timeoutMs: 20_000,
      env: { PATH: process.env.PATH, FAKE_AGENT_RECORD: join(dir, "record.json"), ...env },
    });
  const seenArgv = async () => JSON.parse(await readFile(join(dir, "record.json"), "utf8")).argv as string[];
  const failure = {
    attempt: 1,
    reason: "verification_failed",
    step: "test -s DEMO-HELLO.md",
    exit_code: 1,
    output_tail: "no such file",
  };
  const retry: TaskPayload = { ...task, attempts: 2, max_attempts: 4 };

  it("works in the directory of each call and tells a retry its attempt and what went wrong", async () => {
    const attempt = await agentWith("success.mjs")({
      task: retry,
      plan: null,
      cwd: dir,
      signal: new AbortController().signal,
      previousFailure: failure,
    });
    expect(attempt).toMatchObject({ ok: true, sessionId: "00000000-0000-4000-8000-00000000fa4e" });
    const record = JSON.parse(await readFile(join(dir, "record.json"), "utf8"));
    expect(record.cwd).toBe(dir);
    const prompt = record.argv.at(-1) as string;
    expect(prompt).toMatch(/^Attempt: 2 of 4$/m);
    expect(prompt).toContain("Failing step: test -s DEMO-HELLO.md");
    expect(prompt).toContain("```text\nno such file\n```");
    expect(record.argv).not.toContain("--resume");
  });

  it("resumes a session with the short follow-up prompt", async () => {
    await agentWith("success.mjs")({
      task: retry,
      plan: null,
      cwd: dir,
      signal: new AbortController().signal,
      resumeSessionId: "11111111-2222-4333-8444-555555555555",
      previousFailure: failure,
    });
    const argv = await seenArgv();
    expect(argv.slice(-5, -3)).toEqual(["--resume", "11111111-2222-4333-8444-555555555555"]);
    expect(argv.at(-1)).toMatch(/^Task id: DEMO-001\nAttempt: 2 of 4\n/);
    expect(argv.at(-1)).not.toContain("## Description");
  });

  it("maps a provider limit to limited, not a failure to learn from", async () => {
    const script = { "*": { outcome: "fail", message: "You've hit your limit · resets 8pm (UTC)" } };
    const attempt = await agentWith("by-task.mjs", { FAKE_AGENT_SCRIPT: JSON.stringify(script) })({
      task,
      plan: null,
      cwd: dir,
      signal: new AbortController().signal,
    });
    expect(attempt).toMatchObject({ ok: false, reason: "rate_limited" });
    expect(attempt).not.toHaveProperty("failure");
    expect(attempt.limited?.message).toBe("You've hit your limit · resets 8pm (UTC)");
    expect(attempt.limited?.until?.getUTCHours()).toBe(20);
  });

  it("fills failure for an attempt that failed on its own, for the next attempt's prompt", async () => {
    const script = { "*": { outcome: "fail", message: "The tests fail." } };
    const attempt = await agentWith("by-task.mjs", { FAKE_AGENT_SCRIPT: JSON.stringify(script) })({
      task,
      plan: null,
      cwd: dir,
      signal: new AbortController().signal,
    });
    expect(attempt.failure).toMatchObject({
      reason: "is_error",
      session_id: "00000000-0000-4000-8000-00000000fa4e",
    });
    expect(attempt.failure?.output_tail).toContain("The tests fail.");
  });
});

describe("createClaudeAttempt", () => {
  it("puts the claim's previous failure into the prompt", async () => {
    const run = attemptWith("success.mjs");
    await run({
      task: { ...task, attempts: 2, previous_failure: { attempt: 1, reason: "stalled" } },
      plan: null,
      signal: new AbortController().signal,
    });
    const prompt = JSON.parse(await readFile(join(dir, "record.json"), "utf8")).argv.at(-1) as string;
    expect(prompt).toMatch(/^Attempt: 2 of 3$/m);
    expect(prompt).toContain("Attempt 1 failed: stalled");
  });
});
