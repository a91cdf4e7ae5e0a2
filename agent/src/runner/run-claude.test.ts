import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runClaude } from "./run-claude.js";
import { type ClaudeSettings, parseClaudeSettings } from "./settings.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "whilly-runner-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function settings(agent: string, env: Record<string, string> = {}): ClaudeSettings {
  return parseClaudeSettings(
    { CLAUDE_BIN: join(agents, agent), WHILLY_CLAUDE_KILL_GRACE_MS: "300", ...env },
    {
      isRoot: false,
    },
  );
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", ...extra };
}

/** True once the process is gone or a zombie (waiting for a reaper that may never come in a container). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (isGone(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return isGone(pid);
}

async function readPids(file: string): Promise<number[]> {
  return (await readFile(file, "utf8")).trim().split(" ").map(Number);
}

describe("runClaude with fake agents", () => {
  it("classifies a successful agent as ok and passes cwd, argv and the proxy to the child only", async () => {
    const recordFile = join(dir, "record.json");
    const s = settings("success.mjs", { WHILLY_CLAUDE_PROXY_URL: "http://127.0.0.1:9" });
    const env = baseEnv({ FAKE_AGENT_RECORD: recordFile, ANTHROPIC_API_KEY: "sk-ant-secret-value" });
    const chunks: string[] = [];
    const result = await runClaude({
      prompt: "Task id: T-1\ndo it",
      cwd: dir,
      timeoutMs: 20_000,
      settings: s,
      env,
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(result.outcome).toMatchObject({ ok: true, costMicroUsd: 12_500, numTurns: 2 });
    expect(result.exitCode).toBe(0);
    expect(chunks.join("")).toContain('"type":"result"');
    const seen = JSON.parse(await readFile(recordFile, "utf8"));
    expect(seen.cwd).toBe(dir);
    expect(seen.argv.at(-1)).toBe("Task id: T-1\ndo it");
    expect(seen.env).toEqual({ HTTPS_PROXY: "http://127.0.0.1:9", NO_PROXY: "localhost,127.0.0.1,::1" });
    expect(env).not.toHaveProperty("HTTPS_PROXY");
    expect(JSON.stringify(result)).not.toContain("sk-ant-secret-value");
  });

  it("reads more than a pipe buffer of noise and finds the JSON after it", async () => {
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 20_000,
      settings: settings("noisy.mjs"),
      env: baseEnv(),
    });
    expect(result.stdout.length).toBeGreaterThan(256 * 1024);
    expect(result.outcome.ok).toBe(true);
    expect(result.outcome.resultText).toBe("Noisy but done. <promise>COMPLETE</promise>");
    expect(result.stderr).toContain("status-line helper");
  });

  it("kills the whole process group on timeout, grandchild included", async () => {
    const pidFile = join(dir, "pids");
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 1000,
      settings: settings("hang.mjs"),
      env: baseEnv({ FAKE_AGENT_PID_FILE: pidFile, FAKE_AGENT_IGNORE_TERM: "1" }),
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(result.outcome).toMatchObject({ ok: false, reason: "timeout" });
    const [agent, grandchild] = await readPids(pidFile);
    expect(await waitUntilGone(agent ?? 0)).toBe(true);
    expect(await waitUntilGone(grandchild ?? 0)).toBe(true);
  });

  it("stops the agent and its group when aborted", async () => {
    const pidFile = join(dir, "pids");
    const controller = new AbortController();
    const running = runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 60_000,
      settings: settings("hang.mjs"),
      env: baseEnv({ FAKE_AGENT_PID_FILE: pidFile }),
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.outcome.reason).toBe("aborted");
    const [, grandchild] = await readPids(pidFile);
    expect(await waitUntilGone(grandchild ?? 0)).toBe(true);
  });

  it("does not start at all when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 60_000,
      settings: settings("success.mjs"),
      env: baseEnv({ FAKE_AGENT_RECORD: join(dir, "record.json") }),
      signal: controller.signal,
    });
    expect(result.outcome.reason).toBe("aborted");
    await expect(readFile(join(dir, "record.json"))).rejects.toThrow();
  });

  it("returns when the agent exits, ending what it left running in its group", async () => {
    const pidFile = join(dir, "pids");
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 60_000,
      settings: settings("leaves-child.mjs"),
      env: baseEnv({ FAKE_AGENT_PID_FILE: pidFile }),
    });
    expect(result.timedOut).toBe(false);
    expect(result.outcome.ok).toBe(true);
    const [, leftover] = await readPids(pidFile);
    expect(await waitUntilGone(leftover ?? 0)).toBe(true);
  });

  it("classifies is_error false with exit 1 as nonzero_exit", async () => {
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 20_000,
      settings: settings("exit-one.mjs"),
      env: baseEnv(),
    });
    expect(result.exitCode).toBe(1);
    expect(result.outcome).toMatchObject({ ok: false, reason: "nonzero_exit", costMicroUsd: 12_500 });
  });

  it("reports a missing binary as agent_unavailable (the machine's fault, not the task's)", async () => {
    const result = await runClaude({
      prompt: "p",
      cwd: dir,
      timeoutMs: 20_000,
      settings: settings("no-such-agent"),
      env: baseEnv(),
    });
    expect(result.spawnError?.code).toBe("ENOENT");
    expect(result.outcome).toMatchObject({ ok: false, reason: "agent_unavailable", unavailable: "install" });
  });

  it("reports a missing working directory as spawn_failed", async () => {
    const result = await runClaude({
      prompt: "p",
      cwd: join(dir, "gone"),
      timeoutMs: 20_000,
      settings: settings("success.mjs"),
      env: baseEnv(),
    });
    expect(result.outcome.reason).toBe("spawn_failed");
    expect(result.outcome.message).toContain("does not exist");
  });
});
