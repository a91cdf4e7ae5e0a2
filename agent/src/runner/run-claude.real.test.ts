import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPrompt, parsePlanFile } from "@whilly/core";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClaude } from "./run-claude.js";
import { parseClaudeSettings } from "./settings.js";

// The real Claude Code CLI (devDependency, pinned to the last pure-JS release) against the scripted fake.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const claudeBin = join(root, "node_modules/.bin/claude");
const demoScript = join(root, "test/fixtures/scripts/demo.json");
const plans = join(root, "test/fixtures/plans");

let fake: FakeAnthropic;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-real-claude-"));
  fake = await startFakeAnthropic({ scriptFile: demoScript });
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

/** A fresh project directory and HOME for one run; the runner's settings read the same isolated env. */
async function setup(name: string, maxRetries = 1) {
  const project = join(work, name, "project");
  const home = join(work, name, "home");
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  const env = fakeClaudeEnv({ baseUrl: fake.url, home, maxRetries });
  const settings = parseClaudeSettings({ ...env, CLAUDE_BIN: claudeBin });
  return { project, env, settings };
}

function prompt(taskId: string): string {
  return `Plan: demo\nTask id: ${taskId}\nDo the task, then print <promise>COMPLETE</promise>.`;
}

describe("runClaude with the real Claude Code CLI", () => {
  it("writes DEMO-HELLO.md with the CLI's own Write tool and classifies the run as ok", async () => {
    const { project, env, settings } = await setup("demo-001");
    const result = await runClaude({
      prompt: prompt("DEMO-001"),
      cwd: project,
      timeoutMs: 120_000,
      settings,
      env,
    });

    expect(result.outcome.message).toBe("the agent completed the task");
    expect(result.outcome.ok).toBe(true);
    expect(result.outcome.costMicroUsd).toBeGreaterThan(0);
    expect(result.outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.outcome.numTurns).toBe(3);
    expect(await readFile(join(project, "DEMO-HELLO.md"), "utf8")).toBe("Hello from Whilly demo!\n");

    const mine = fake
      .requests()
      .filter((r) => r.sessionId === result.outcome.sessionId && r.kind === "agent");
    expect(mine.map((r) => r.turn)).toEqual([0, 1, 2]);
    expect(mine.every((r) => r.script === "DEMO-001" && r.warnings.length === 0)).toBe(true);
    expect(mine[1]?.toolResults?.[0]?.isError).toBe(false);
    expect(JSON.stringify(result)).not.toContain("sk-ant-fake");
  });

  it("classifies an API failure (HTTP 500, no retries) as is_error", async () => {
    const failing = await startFakeAnthropic({ script: { default: { turns: [], fault: { status: 500 } } } });
    try {
      const { project, env, settings } = await setup("http-500", 0);
      const result = await runClaude({
        prompt: prompt("DEMO-001"),
        cwd: project,
        timeoutMs: 120_000,
        settings,
        env: { ...env, ANTHROPIC_BASE_URL: failing.url },
      });
      expect(result.exitCode).toBe(1);
      expect(result.outcome).toMatchObject({ ok: false, reason: "is_error", subtype: "success" });
      expect(result.outcome.resultText).toContain("500");
      expect(failing.requests().filter((r) => r.kind === "agent")).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });

  it("classifies the CLI's own error_max_turns as max_turns", async () => {
    const { project, env } = await setup("max-turns");
    const settings = parseClaudeSettings({ ...env, CLAUDE_BIN: claudeBin, WHILLY_CLAUDE_MAX_TURNS: "1" });
    const result = await runClaude({
      prompt: prompt("DEMO-001"),
      cwd: project,
      timeoutMs: 120_000,
      settings,
      env,
    });
    expect(result.argv).toContain("--max-turns");
    expect(result.outcome).toMatchObject({ ok: false, reason: "max_turns", subtype: "error_max_turns" });
    expect(result.outcome.costMicroUsd).toBeGreaterThan(0);
  });

  it("classifies a silently denied tool (safe mode, arbitrary Bash) as permission_denied", async () => {
    const denying = await startFakeAnthropic({
      script: {
        tasks: {
          "DENY-1": {
            turns: [
              {
                tool_use: {
                  name: "Bash",
                  input: { command: "node -e 'console.log(42)'", description: "run" },
                },
              },
              { text: "All done. <promise>COMPLETE</promise>" },
            ],
          },
        },
      },
    });
    try {
      const { project, env } = await setup("denied");
      const fakeEnv = { ...env, ANTHROPIC_BASE_URL: denying.url };
      const settings = parseClaudeSettings({ ...fakeEnv, CLAUDE_BIN: claudeBin, WHILLY_CLAUDE_SAFE: "1" });
      const result = await runClaude({
        prompt: prompt("DENY-1"),
        cwd: project,
        timeoutMs: 120_000,
        settings,
        env: fakeEnv,
      });
      expect(result.exitCode).toBe(0);
      expect(result.outcome.reason).toBe("permission_denied");
      expect(result.outcome.permissionDenials.map((d) => d.toolName)).toEqual(["Bash"]);
    } finally {
      await denying.close();
    }
  });

  it("kills the CLI when the model never answers and classifies it as timeout", async () => {
    const hanging = await startFakeAnthropic({ script: { default: { turns: [{ fault: "hang" }] } } });
    try {
      const { project, env } = await setup("hang");
      const fakeEnv = { ...env, ANTHROPIC_BASE_URL: hanging.url };
      const settings = parseClaudeSettings({
        ...fakeEnv,
        CLAUDE_BIN: claudeBin,
        WHILLY_CLAUDE_KILL_GRACE_MS: "1000",
      });
      const result = await runClaude({
        prompt: prompt("DEMO-001"),
        cwd: project,
        timeoutMs: 10_000,
        settings,
        env: fakeEnv,
      });
      expect(result.timedOut).toBe(true);
      expect(result.outcome).toMatchObject({ ok: false, reason: "timeout" });
      // Killed before any result, the session is still known: stream-json's init event named it.
      expect(result.outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(hanging.requests().some((r) => r.fault === "hang")).toBe(true);
    } finally {
      await hanging.close();
    }
  });

  it("plays every demo script, prompted as whilly prompts, so that the plans' test steps pass", async () => {
    const { project, env, settings } = await setup("demo-all");
    for (const file of ["demo.tasks.json", "demo-parallel.tasks.json"]) {
      const plan = parsePlanFile(await readFile(join(plans, file), "utf8"), file);
      for (const task of plan.tasks) {
        const result = await runClaude({
          prompt: buildPrompt({ plan, task }),
          cwd: project,
          timeoutMs: 120_000,
          settings,
          env,
        });
        expect(result.outcome.reason, `${task.id}: ${result.outcome.message}`).toBeUndefined();
        for (const step of task.testSteps) {
          expect(
            () => execFileSync("bash", ["-c", step], { cwd: project }),
            `${task.id}: ${step}`,
          ).not.toThrow();
        }
      }
    }
    const played = new Set(fake.requests().flatMap((r) => (r.kind === "agent" ? [r.script] : [])));
    expect([...played].sort()).toEqual([
      "DEMO-001",
      "DEMO-002",
      "DEMO-003",
      "DEMO-004",
      "PAR-001",
      "PAR-002",
    ]);
    // Every scripted tool call really ran: the CLI sent back no error result (e.g. an Edit before a Read).
    const failedTools = fake.requests().flatMap((r) => (r.toolResults ?? []).filter((t) => t.isError));
    expect(failedTools).toEqual([]);
    expect(await readFile(join(project, "NOTES.md"), "utf8")).not.toContain("TODO");
  }, 120_000);
});
