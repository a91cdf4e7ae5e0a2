import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AttemptProgress } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runClaude } from "./run-claude.js";
import { parseClaudeSettings } from "./settings.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));
const settings = parseClaudeSettings(
  { CLAUDE_BIN: join(agents, "stream.mjs"), WHILLY_CLAUDE_KILL_GRACE_MS: "300" },
  { isRoot: false },
);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "whilly-stream-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", FAKE_AGENT_RECORD: join(dir, "record.json"), ...extra };
}

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

describe("runClaude reading stream-json", () => {
  it("runs with stream-json, reports turns and the last tool as they come, and the session id", async () => {
    const seen: AttemptProgress[] = [];
    const result = await runClaude({
      prompt: "Task id: T-1",
      cwd: dir,
      timeoutMs: 20_000,
      settings,
      env: env({ FAKE_AGENT_TOOLS: "Write,Edit,Bash" }),
      activityIntervalMs: 0,
      onActivity: (progress) => seen.push(progress),
    });
    expect(result.outcome).toMatchObject({ ok: true, numTurns: 4 });
    expect(result.sessionId).toBe("00000000-0000-4000-8000-0000005e55ed");
    const argv = JSON.parse(await readFile(join(dir, "record.json"), "utf8")).argv as string[];
    expect(argv.slice(argv.indexOf("--output-format"), argv.indexOf("--output-format") + 3)).toEqual([
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    expect(seen.map((p) => p.last_tool)).toEqual(expect.arrayContaining(["Write", "Edit", "Bash"]));
    expect(seen.map((p) => p.turns)).toEqual(
      [...seen.map((p) => p.turns)].sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
    expect(seen.at(-1)).toEqual({ turns: 4, last_tool: "Bash" });
    expect(result.progress).toEqual({ turns: 4, last_tool: "Bash" });
  });

  it("throttles progress: one report at once, the latest one when the interval has passed", async () => {
    const seen: AttemptProgress[] = [];
    await runClaude({
      prompt: "Task id: T-1",
      cwd: dir,
      timeoutMs: 20_000,
      settings,
      env: env({ FAKE_AGENT_TOOLS: "A,B,C,D,E,F" }),
      activityIntervalMs: 60_000,
      onActivity: (progress) => seen.push(progress),
    });
    // The first change at once; the rest arrived within the interval, so only the final report follows.
    expect(seen).toEqual([{ turns: 1 }, { turns: 7, last_tool: "F" }]);
  });

  it("ends a silent agent as stalled, with its session id, and leaves nothing running", async () => {
    const pidFile = join(dir, "pids");
    const result = await runClaude({
      prompt: "Task id: T-1",
      cwd: dir,
      timeoutMs: 60_000,
      stallTimeoutMs: 2000,
      settings,
      env: env({ FAKE_AGENT_STALL: "1", FAKE_AGENT_PID_FILE: pidFile, FAKE_AGENT_TOOLS: "Bash" }),
    });
    expect(result.stalled).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.outcome).toMatchObject({ ok: false, reason: "stalled" });
    expect(result.outcome.message).toMatch(
      /^no output from the agent for 2s \(--stall-timeout\).*larger --stall-timeout$/,
    );
    expect(result.outcome.sessionId).toBe("00000000-0000-4000-8000-0000005e55ed");
    const [agent, grandchild] = (await readFile(pidFile, "utf8")).trim().split(" ").map(Number);
    expect(isGone(agent ?? 0)).toBe(true);
    expect(isGone(grandchild ?? 0)).toBe(true);
  });

  it("does not stall an agent that keeps printing, however long it runs", async () => {
    const result = await runClaude({
      prompt: "Task id: T-1",
      cwd: dir,
      timeoutMs: 20_000,
      stallTimeoutMs: 1500,
      settings,
      // Six gaps of 400 ms: the run outlasts the stall timeout, no silence does.
      env: env({ FAKE_AGENT_TOOLS: "A,B,C,D,E", FAKE_AGENT_GAP_MS: "400" }),
    });
    expect(result.outcome).toMatchObject({ ok: true });
    expect(result.stalled).toBe(false);
    expect(result.wallMs).toBeGreaterThan(1500);
  });
});
