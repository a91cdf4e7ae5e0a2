import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AttemptProgress, TaskPayload } from "@whilly/core";
import {
  type FakeAnthropic,
  type FakeScript,
  fakeClaudeEnv,
  startFakeAnthropic,
} from "@whilly/fake-anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClaudeAgent } from "./attempt.js";
import { findAttemptProcesses } from "./end-processes.js";
import { runClaude } from "./run-claude.js";
import { parseClaudeSettings } from "./settings.js";

// The real Claude Code CLI (pinned in package.json) against the scripted fake: stream-json, stalls,
// limits, resume and per-attempt stories as whilly meets them.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const claudeBin = join(root, "node_modules/.bin/claude");

let work: string;
let fake: FakeAnthropic | undefined;
let clock = 0;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-real-agent-"));
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  clock = 0;
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function setup(name: string, script: FakeScript) {
  fake = await startFakeAnthropic({ script, clock: () => clock });
  const project = join(work, name, "project");
  const home = join(work, name, "home");
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  const env = fakeClaudeEnv({ baseUrl: fake.url, home, maxRetries: 1 });
  const settings = parseClaudeSettings({ ...env, CLAUDE_BIN: claudeBin, WHILLY_CLAUDE_KILL_GRACE_MS: "500" });
  const agent = createClaudeAgent({ settings, env, timeoutMs: 60_000, activityIntervalMs: 0 });
  return { project, env, settings, agent, fake };
}

function task(id: string, attempts = 1): TaskPayload {
  return {
    plan_id: "real",
    id,
    status: "IN_PROGRESS",
    priority: "high",
    description: `Do ${id}.`,
    dependencies: [],
    key_files: [],
    acceptance_criteria: ["it is done"],
    test_steps: ["test -s out.txt"],
    prd_requirement: "",
    version: 2,
    attempts,
    max_attempts: 3,
    claimed_by: "w1",
    lease_expires_at: null,
  };
}

const write = (content: string) => ({
  tool_use: { name: "Write", input: { file_path: "{{cwd}}/out.txt", content } },
});
const bash = (command: string) => ({ tool_use: { name: "Bash", input: { command, description: "check" } } });
const signal = () => new AbortController().signal;

describe("createClaudeAgent with the real Claude Code CLI", () => {
  it("reads stream-json as it comes: turns, the last tool, the session id", async () => {
    const { project, agent } = await setup("progress", {
      tasks: {
        P: { turns: [write("one\n"), bash("cat out.txt"), { text: "Done.\n<promise>COMPLETE</promise>" }] },
      },
    });
    const seen: AttemptProgress[] = [];
    const attempt = await agent({
      task: task("P"),
      plan: null,
      cwd: project,
      signal: signal(),
      onActivity: (p) => seen.push(p),
    });
    expect(attempt).toMatchObject({ ok: true });
    expect(attempt.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.map((p) => p.last_tool).filter((t) => t !== undefined)).toEqual(
      expect.arrayContaining(["Write", "Bash"]),
    );
    expect(seen.at(-1)).toEqual({ turns: 3, last_tool: "Bash" });
    expect(await readFile(join(project, "out.txt"), "utf8")).toBe("one\n");
  });

  it("ends an agent that prints nothing for the stall timeout as stalled, leaving nothing running", async () => {
    const {
      project,
      env,
      settings,
      fake: model,
    } = await setup("stall", {
      default: { turns: [{ fault: "hang" }] },
    });
    const result = await runClaude({
      prompt: "Task id: S\nAttempt: 1 of 1",
      cwd: project,
      timeoutMs: 60_000,
      // Long enough for the CLI to start and send its request on a loaded machine; the model never answers.
      stallTimeoutMs: 5000,
      settings,
      env,
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: "stalled" });
    const hung = model.requests().find((r) => r.fault === "hang");
    expect(hung?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.sessionId).toBe(hung?.sessionId);
    expect(findAttemptProcesses({ attemptId: result.attemptId, known: [] })).toEqual([]);
  });

  it("classifies a 429 storm the CLI gave up on as limited, with the reset time the message names", async () => {
    const message = "You've hit your limit · resets 8pm (America/New_York)";
    const {
      project,
      agent,
      fake: model,
    } = await setup("storm", {
      default: { turns: [{ fault: { status: 429, message } }] },
    });
    const attempt = await agent({ task: task("L"), plan: null, cwd: project, signal: signal() });
    expect(attempt).toMatchObject({ ok: false, reason: "rate_limited" });
    expect(attempt.limited?.message).toContain(message);
    expect(attempt.limited?.until?.getTime()).toBeGreaterThan(Date.now());
    expect(attempt.failure).toBeUndefined();
    expect(model.requests().filter((r) => r.kind === "agent")).toHaveLength(2);
  });

  it("plays through once a fault held for_ms is over (the fake's clock moved by the test)", async () => {
    const { project, agent } = await setup("for-ms", {
      tasks: {
        F: {
          turns: [
            { ...write("x\n"), fault: { status: 529, for_ms: 5000 } },
            { text: "<promise>COMPLETE</promise>" },
          ],
        },
      },
    });
    const first = await agent({ task: task("F"), plan: null, cwd: project, signal: signal() });
    expect(first).toMatchObject({ ok: false, reason: "rate_limited", limited: { until: undefined } });
    clock = 5000;
    const second = await agent({ task: task("F"), plan: null, cwd: project, signal: signal() });
    expect(second).toMatchObject({ ok: true });
  });

  it("plays a story per attempt: a fresh retry (a new session) gets attempt 2's story and the feedback", async () => {
    const {
      project,
      agent,
      fake: model,
    } = await setup("per-attempt", {
      tasks: {
        A: {
          attempts: [
            { turns: [{ text: "I could not finish." }] },
            { turns: [write("fixed\n"), { text: "Fixed.\n<promise>COMPLETE</promise>" }] },
          ],
        },
      },
    });
    const first = await agent({ task: task("A", 1), plan: null, cwd: project, signal: signal() });
    expect(first).toMatchObject({ ok: false, reason: "no_marker" });
    const second = await agent({
      task: task("A", 2),
      plan: null,
      cwd: project,
      signal: signal(),
      previousFailure: { attempt: 1, reason: first.reason ?? "", output_tail: first.failure?.output_tail },
    });
    expect(second).toMatchObject({ ok: true });
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(model.requests().flatMap((r) => (r.kind === "agent" ? [r.attempt] : []))).toEqual([1, 2, 2]);
    // Attempt 2's prompt told it what went wrong: the reason and the end of attempt 1's output.
    const told = model.requests().find((r) => r.attempt === 2 && r.turn === 0)?.prompt ?? "";
    expect(told).toMatch(/^Attempt: 2 of 3$/m);
    expect(told).toContain("Attempt 1 failed: no_marker");
    expect(told).toContain("I could not finish.");
  });

  it("resumes the session of the previous attempt, which continues at attempt 2's first turn", async () => {
    const {
      project,
      agent,
      fake: model,
    } = await setup("resume", {
      tasks: {
        R: {
          attempts: [
            { turns: [write("draft\n"), { text: "Wrote a draft." }] },
            { turns: [bash("cat out.txt"), { text: "Checked.\n<promise>COMPLETE</promise>" }] },
          ],
        },
      },
    });
    const first = await agent({ task: task("R", 1), plan: null, cwd: project, signal: signal() });
    expect(first).toMatchObject({ ok: false, reason: "no_marker" });
    const second = await agent({
      task: task("R", 2),
      plan: null,
      cwd: project,
      signal: signal(),
      resumeSessionId: first.sessionId,
      previousFailure: {
        attempt: 1,
        reason: "verification_failed",
        step: "grep -q final out.txt",
        exit_code: 1,
      },
    });
    expect(second).toMatchObject({ ok: true, sessionId: first.sessionId, detail: { resumed: true } });
    const played = model.requests().filter((r) => r.kind === "agent");
    expect(played.map((r) => [r.attempt, r.turn])).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
      [2, 1],
    ]);
    // The resumed session ran Bash on the draft the first attempt wrote.
    expect(played[3]?.toolResults?.[0]?.text).toContain("draft");
  });

  it("starts over with the full prompt when the session to resume is not there", async () => {
    const {
      project,
      agent,
      fake: model,
    } = await setup("resume-missing", {
      tasks: {
        M: { attempts: [{ turns: [] }, { turns: [write("y\n"), { text: "<promise>COMPLETE</promise>" }] }] },
      },
    });
    const attempt = await agent({
      task: task("M", 2),
      plan: null,
      cwd: project,
      signal: signal(),
      resumeSessionId: "00000000-0000-4000-8000-00000000abcd",
      previousFailure: { attempt: 1, reason: "stalled" },
    });
    expect(attempt).toMatchObject({ ok: true, detail: { resumed: false } });
    expect(model.requests().flatMap((r) => (r.kind === "agent" ? [[r.attempt, r.turn]] : []))).toEqual([
      [2, 0],
      [2, 1],
    ]);
  });
});
