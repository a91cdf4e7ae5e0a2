import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  makeRepo,
  makeStoreTemplate,
  processGone,
  ROOT,
  removeAll,
  runBin,
  scratchDir,
  spawnBin,
  waitFor,
  withStore,
  writePlanFile,
} from "../support/cli.js";

// `whilly run` as a process with the REAL Claude Code CLI, whose scripted Bash command starts `sleep 30`
// and waits for it. Claude Code runs the command in a session of its own, outside the agent's process
// group; the sleep's pid goes to sleep.pid and the attempt's mark to mark.txt, so each test checks by pid
// (and by an independent scan of /proc) that nothing the agent started outlives the attempt.
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");
/**
 * Sleeps on the first attempt only (sleep.pid exists on the next), so a re-run finishes at once. The
 * agent works in a task's worktree: its files go to the repository's top (the parent of git's common
 * directory), where the test finds them whichever worktree the attempt had.
 */
const SLEEPER =
  'top="$(git rev-parse --git-common-dir)/.."; if [ -e "$top/sleep.pid" ]; then exit 0; fi; echo $WHILLY_ATTEMPT_ID > "$top/mark.txt"; sleep 30 & echo $! > "$top/sleep.pid"; wait $!; echo late > late.txt';

let template: string;
let fake: FakeAnthropic;
const leftovers: number[] = [];
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({
      script: {
        default: {
          turns: [
            { tool_use: { name: "Bash", input: { command: SLEEPER, description: "sleep" } } },
            { text: "Done. <promise>COMPLETE</promise>" },
          ],
        },
      },
    }),
  ]);
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
  await fake?.close();
  removeAll();
});

function setup(planId: string) {
  const repo = makeRepo(template);
  writePlanFile(join(repo, "tasks.json"), planId, [["S-1", "high"]]);
  const env: Record<string, string> = {
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-") }),
    CLAUDE_BIN: CLAUDE,
    WHILLY_MODEL: "claude-sonnet-4-6",
    WHILLY_CLAUDE_KILL_GRACE_MS: "200",
  };
  return { repo, env };
}

/** The sleep's pid and the attempt's id, once the agent's command has written them. */
async function sleeper(repo: string): Promise<{ pid: number; attemptId: string }> {
  const pidFile = join(repo, "sleep.pid");
  await waitFor("the agent's sleep", () => (existsSync(pidFile) ? true : undefined), 30_000);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  leftovers.push(pid);
  const attemptId = readFileSync(join(repo, "mark.txt"), "utf8").trim();
  expect(attemptId).toMatch(/^[0-9a-f-]{36}$/);
  return { pid, attemptId };
}

/** Live processes carrying `WHILLY_ATTEMPT_ID=<id>`, read from /proc. */
function marked(id: string): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const environ = readFileSync(`/proc/${n}/environ`, "latin1").split("\0");
        return environ.includes(`WHILLY_ATTEMPT_ID=${id}`) && !processGone(Number(n));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.runIf(process.platform === "linux")("whilly run: nothing the agent started outlives it", () => {
  // The timeout leaves room for Claude Code to start and run its command on a loaded machine.
  it("a task timeout ends the agent's Bash command too", { timeout: 60_000 }, async () => {
    const { repo, env } = setup("contain-timeout");
    const run = spawnBin(["run", "tasks.json", "--task-timeout", "15s"], { cwd: repo, env });
    const { pid, attemptId } = await sleeper(repo);
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(processGone(pid)).toBe(true);
    expect(marked(attemptId)).toEqual([]);
  });

  it("Ctrl-C (SIGINT) of whilly run ends the agent's Bash command before it exits 130", async () => {
    const { repo, env } = setup("contain-sigint");
    const run = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    const { pid, attemptId } = await sleeper(repo);
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(processGone(pid)).toBe(true);
    expect(marked(attemptId)).toEqual([]);
    const task = await withStore(repo, (store) => store.getTask("contain-sigint", "S-1"));
    expect(task?.status).toBe("PENDING");
  });

  it("after kill -9 of whilly run, the next run ends the orphans, says so, then re-runs the task", async () => {
    const { repo, env } = setup("contain-kill");
    const first = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    const { pid, attemptId } = await sleeper(repo);
    first.child.kill("SIGKILL");
    await first.done;
    // The killed run took nothing along: its agent and the agent's shell still run.
    expect(processGone(pid)).toBe(false);
    const orphans = marked(attemptId);
    leftovers.push(...orphans);
    expect(orphans.length).toBeGreaterThanOrEqual(2);

    const second = await runBin(["run", "tasks.json"], { cwd: repo, env });
    expect(second.err).toMatch(
      /whilly run: ended \d+ process\(es\) left running by 1 attempt\(s\) of a run that is gone\n/,
    );
    expect(processGone(pid)).toBe(true);
    expect(marked(attemptId)).toEqual([]);
    expect(second.code).toBe(0);
    expect(readdirSync(join(repo, ".whilly", "attempts"))).toEqual([]);
  });
});
