import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { recordsDir } from "./attempt-record.js";
import { runClaude } from "./run-claude.js";
import { parseClaudeSettings } from "./settings.js";

// The real Claude Code CLI runs each Bash command in a session of its own, outside the agent's process
// group, so a group kill misses it. Its command here starts `sleep 30` (in the background, or waited for)
// and writes the sleep's pid, so the test can check by pid that nothing outlives the attempt.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const claudeBin = join(root, "node_modules/.bin/claude");

/** The Bash tool's command: the sleep's pid to sleep.pid, the attempt's mark to mark.txt. */
const BACKGROUND =
  "(sleep 30 & echo $! > sleep.pid; wait $!; echo late > late.txt) & echo $WHILLY_ATTEMPT_ID > mark.txt";
const FOREGROUND =
  "echo $WHILLY_ATTEMPT_ID > mark.txt; sleep 30 & echo $! > sleep.pid; wait $!; echo late > late.txt";

let fake: FakeAnthropic;
let work: string;
const leftovers: number[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-contain-"));
  const bash = (command: string) => ({
    turns: [
      { tool_use: { name: "Bash", input: { command, description: "sleep" } } },
      { text: "Done. <promise>COMPLETE</promise>" },
    ],
  });
  fake = await startFakeAnthropic({
    script: { tasks: { "BG-1": bash(BACKGROUND), "FG-1": bash(FOREGROUND) } },
  });
});
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

async function setup(name: string) {
  const project = join(work, name, "project");
  const home = join(work, name, "home");
  const state = join(work, name, "state");
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  const env = { ...fakeClaudeEnv({ baseUrl: fake.url, home }), WHILLY_CLAUDE_KILL_GRACE_MS: "200" };
  const settings = parseClaudeSettings({ ...env, CLAUDE_BIN: claudeBin });
  return { project, env, settings, state };
}

/** The sleep's pid, once the agent's command has written it. */
async function sleepPid(project: string): Promise<number> {
  const file = join(project, "sleep.pid");
  for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  const pid = Number(readFileSync(file, "utf8").trim());
  leftovers.push(pid);
  return pid;
}

/** True when the pid runs no process any more (a zombie waiting for its new parent counts as gone). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return true;
  }
}

/** Live processes whose environment carries `WHILLY_ATTEMPT_ID=<id>`, read from /proc independently. */
function marked(id: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1").split("\0");
      if (environ.includes(`WHILLY_ATTEMPT_ID=${id}`) && !gone(Number(name))) found.push(Number(name));
    } catch {
      // Gone or not ours.
    }
  }
  return found;
}

function prompt(taskId: string): string {
  return `Plan: contain\nTask id: ${taskId}\nDo the task, then print <promise>COMPLETE</promise>.`;
}

describe.runIf(process.platform === "linux")("no process the agent started outlives its attempt", () => {
  it("after a normal exit: the Bash tool's background sleep is ended, and the record removed", async () => {
    const { project, env, settings, state } = await setup("normal");
    const result = await runClaude({
      prompt: prompt("BG-1"),
      cwd: project,
      timeoutMs: 60_000,
      settings,
      env,
      stateDir: state,
    });
    expect(result.outcome.ok).toBe(true);
    const pid = await sleepPid(project);
    expect(readFileSync(join(project, "mark.txt"), "utf8").trim()).toBe(result.attemptId);
    expect(gone(pid)).toBe(true);
    expect(marked(result.attemptId)).toEqual([]);
    expect(readdirSync(recordsDir(state))).toEqual([]);
  });

  // The timeout leaves room for Claude Code to start and run its command on a loaded machine.
  it("after the task timeout: the sleep the agent waited for is ended", { timeout: 60_000 }, async () => {
    const { project, env, settings } = await setup("timeout");
    const run = runClaude({ prompt: prompt("FG-1"), cwd: project, timeoutMs: 15_000, settings, env });
    const pid = await sleepPid(project);
    const result = await run;
    expect(result.outcome.reason).toBe("timeout");
    expect(gone(pid)).toBe(true);
    expect(marked(result.attemptId)).toEqual([]);
  });

  it("after an abort (Ctrl-C, worker shutdown, a refused heartbeat): the sleep is ended", async () => {
    const { project, env, settings } = await setup("abort");
    const stop = new AbortController();
    const run = runClaude({
      prompt: prompt("FG-1"),
      cwd: project,
      timeoutMs: 60_000,
      settings,
      env,
      signal: stop.signal,
    });
    const pid = await sleepPid(project);
    stop.abort();
    const result = await run;
    expect(result.outcome.reason).toBe("aborted");
    expect(gone(pid)).toBe(true);
    expect(marked(result.attemptId)).toEqual([]);
  });
});
