import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentStep,
  baseEnv,
  eventsOf,
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  scratchDir,
  spawnBin,
  type TaskLine,
  waitFor,
  withStore,
  writePlanFile,
} from "../../../test/support/cli.js";
import { clockTime } from "../run/progress.js";

// `whilly run`'s slots, retries and pauses with a fake Claude Code (test/fixtures/fake-agents/by-task.mjs):
// what it waits for, what it refuses, and what its summary says.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

function setup(
  planId: string,
  tasks: TaskLine[],
  script: Record<string, AgentStep>,
  plan: { maxAttempts?: number } = {},
) {
  const repo = makeRepo(template);
  writePlanFile(join(repo, "tasks.json"), planId, tasks, plan);
  const log = join(scratchDir("whilly-agent-"), "agent.log");
  const run = (argv: string[], extra: Record<string, string> = {}) =>
    runCli(["run", "tasks.json", ...argv], {
      cwd: repo,
      env: { ...fakeAgentEnv({ script, log }), ...extra },
    });
  return { repo, run };
}

describe("whilly run's waiting and slots", () => {
  it("refuses --concurrency above 1 outside a git repository, with a hint", async () => {
    const dir = scratchDir("whilly-nogit-");
    writePlanFile(join(dir, "tasks.json"), "nogit", [["N-1", "high"]]);
    const result = await runCli(["run", "tasks.json", "-j", "2"], { cwd: dir, env: baseEnv() });
    expect(result.code).toBe(2);
    expect(result.err).toContain("error: --concurrency 2 needs a git repository");
    expect(result.err).toContain(
      "hint: run it in a git repository (git init, then a first commit), or drop --concurrency",
    );
  });

  it("waits while an operator pauses every worker, says so once, and runs the task after the resume", async () => {
    const repo = makeRepo(template);
    writePlanFile(join(repo, "tasks.json"), "opause", [["P-1", "high"]]);
    const env = fakeAgentEnv({
      script: { "P-1": { outcome: "ok" } },
      log: join(scratchDir("whilly-agent-"), "a.log"),
    });
    const local = (argv: string[]) => runCli(argv, { cwd: repo, env });
    expect((await local(["plan", "import", "tasks.json"])).code).toBe(0);
    expect((await local(["worker", "pause"])).code).toBe(0);
    // --no-wait stops at once, saying why, rather than ending as if nothing were ready.
    const stopped = await local(["run", "tasks.json", "--no-wait"]);
    expect(stopped.err).toContain("workers are paused (whilly worker pause); not waiting (--no-wait)");
    const running = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    await waitFor("the run to say it waits", () =>
      running.err().includes("ready tasks wait until `whilly worker resume`") ? true : undefined,
    );
    // The run owns the store now: the resume reaches it through its local socket.
    const resumed = await local(["worker", "resume"]);
    expect(resumed.code, resumed.err).toBe(0);
    const result = await running.done;
    expect(result.code, result.err).toBe(0);
    expect(result.err.match(/ready tasks wait until `whilly worker resume`/g) ?? []).toHaveLength(1);
    expect((await eventsOf(repo, "opause")).map((e) => e.eventType)).toContain("COMPLETE");
  });

  it("with --no-wait exits 75 when the only work left is a retry waiting out its backoff", async () => {
    const { repo, run } = setup(
      "later",
      [["L-1", "high"]],
      { "L-1": { outcome: "fail" } },
      { maxAttempts: 2 },
    );
    const result = await run(["--no-wait"], { WHILLY_RETRY_BACKOFF: "1h" });
    expect(result.code).toBe(75);
    expect(result.err).toMatch(/whilly run: L-1 wait\(s\) for a retry at .+; not waiting \(--no-wait\)/);
    const task = await withStore(repo, (store) => store.getTask("later", "L-1"));
    expect(task).toMatchObject({ status: "PENDING", attempts: 1 });
    expect(task?.notBefore?.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    // The summary gives the retry's time as the progress lines do, not as ISO.
    const retryAt = clockTime(task?.notBefore ?? new Date(0));
    expect(result.out).toMatch(/^L-1 +PENDING +1\/2 .* retry not before .+ \(after is_error\)$/m);
    expect(result.out).toContain(`retry not before ${retryAt} (after is_error)`);
  });

  it("waits for a retry's backoff, says so, and runs the retry", async () => {
    const { repo, run } = setup(
      "again",
      [["R-1", "high"]],
      { "R-1": { outcome: "fail" } },
      { maxAttempts: 2 },
    );
    const result = await run([], { WHILLY_RETRY_BACKOFF: "300ms" });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/whilly run: waiting for the retry of R-1 at \d\d:\d\d:\d\d/);
    // The failed attempt's line gives its duration and, apart, the retry's time from the task's not-before.
    expect(result.err).toMatch(/✗ R-1 attempt 1 failed after \S+ \(\w+\); retry at \d\d:\d\d:\d\d \(UTC/);
    const fails = (await eventsOf(repo, "again")).filter((e) => e.eventType === "FAIL");
    expect(fails.map((e) => e.payload.retry)).toEqual([true, false]);
    expect(result.out).toMatch(/^R-1 +FAILED +2\/2 /m);
  });

  it("with --no-wait exits 75 when a provider limit pauses the run, the task handed back with its attempt", async () => {
    const { repo, run } = setup("limited", [["P-1", "high"]], {
      "P-1": { outcome: "fail", message: "API Error: Request rejected (429) · rate limited" },
    });
    const result = await run(["--no-wait"], { WHILLY_LIMIT_BACKOFF: "1h" });
    expect(result.code).toBe(75);
    expect(result.err).toMatch(/⏸ provider limit on P-1 \(.*429.*\); no new task before /);
    expect(result.err).toMatch(/the work left waits on a provider limit until .+; not waiting \(--no-wait\)/);
    const events = await eventsOf(repo, "limited");
    expect(events.find((e) => e.eventType === "RELEASE")?.payload).toMatchObject({ reason: "rate_limited" });
    expect(events.find((e) => e.eventType === "worker.paused")?.payload).toMatchObject({
      reason: "rate_limited",
    });
    const task = await withStore(repo, (store) => store.getTask("limited", "P-1"));
    expect(task).toMatchObject({ status: "PENDING", attempts: 0 });
  });

  it("summarizes a FAILED task's blocked dependents and attempts in JSON, and runs -j 2 as two workers", async () => {
    const { repo, run } = setup(
      "blocked",
      [
        ["B-1", "high"],
        ["B-2", "high", ["B-1"]],
        ["B-3", "low", ["B-2"]],
        ["B-4", "low"],
      ],
      { "B-1": { outcome: "fail" } },
    );
    const result = await run(["--json", "-j", "2"]);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.out);
    const b1 = summary.tasks.find((t: { id: string }) => t.id === "B-1");
    expect(b1).toMatchObject({ status: "FAILED", attempts: 1, max_attempts: 1, blocks: ["B-2", "B-3"] });
    expect(b1.worktree).toMatch(/\.whilly\/worktrees\/blocked\//);
    const b4 = summary.tasks.find((t: { id: string }) => t.id === "B-4");
    expect(b4).toMatchObject({ status: "DONE", verification: "unverified", blocks: [], worktree: null });
    const workers = await withStore(repo, (store) => store.listWorkers());
    expect(workers.map((w) => w.workerId).sort()).toEqual([
      expect.stringMatching(/^local-.+-\d+$/),
      expect.stringMatching(/^local-.+-\d+-2$/),
    ]);
  });
});
