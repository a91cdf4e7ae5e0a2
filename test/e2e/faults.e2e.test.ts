import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  fakeAgentEnv,
  killGroup,
  makeRepo,
  makeStoreTemplate,
  processGone,
  readAgentLog,
  removeAll,
  runBin,
  runCli,
  scratchDir,
  spawnBin,
  type TaskLine,
  waitFor,
  withStore,
  writePlanFile,
} from "../support/cli.js";

// Faults of `whilly run` as a real process (the built cli/bin/whilly.js) on the embedded store, with the
// fake agent test/fixtures/fake-agents/by-task.mjs: kill -9, a second process, Ctrl-C.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** Agent process groups a test left running (a killed `whilly` does not take its agent along). */
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) killGroup(pid);
});

function setup(script: Parameters<typeof fakeAgentEnv>[0]["script"]) {
  const repo = makeRepo(template);
  const scratch = scratchDir("whilly-fault-");
  const log = join(scratch, "agent.log");
  const env = fakeAgentEnv({ script, log, state: scratch });
  const agents = () => readAgentLog(log);
  return { repo, scratch, env, agents };
}

function writePlan(repo: string, planId: string, tasks: TaskLine[]): void {
  writePlanFile(join(repo, "tasks.json"), planId, tasks);
}

describe("whilly run as a process", () => {
  it("after kill -9, the next run releases the orphaned task (worker_offline), re-runs it and finishes", async () => {
    const { repo, env, agents } = setup({ "K-1": { outcome: "hang_once" } });
    writePlan(repo, "killed", [
      ["K-1", "high", []],
      ["K-2", "low", ["K-1"]],
    ]);
    const first = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    const agent = await waitFor("the agent of K-1", () => agents().find((a) => a.grandchild !== undefined));
    leftovers.push(agent.pid);
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    const deadWorker = `local-${hostname()}-${first.child.pid}`;

    // The killed run left its socket: the next command is refused at it and opens the store itself.
    expect(existsSync(join(repo, ".whilly", "whilly.sock"))).toBe(true);
    const shown = await runCli(["plan", "show", "killed"], { cwd: repo, env });
    expect(shown).toMatchObject({ code: 0, err: "" });
    expect(shown.out).toMatch(/IN_PROGRESS *\] K-1/);
    // What the killed run left: K-1 leased to a worker that is gone.
    const left = await withStore(repo, (store) => store.getTask("killed", "K-1"));
    expect(left).toMatchObject({ status: "IN_PROGRESS", claimedBy: deadWorker });

    const second = await runBin(["run", "tasks.json"], { cwd: repo, env });
    expect(second.code).toBe(0);
    expect(second.err).toContain(
      "whilly run: returned 1 task(s) left claimed by a run that is gone: killed/K-1\n",
    );
    expect(second.err).toContain("whilly run: resuming stored plan 'killed'\n");
    expect(second.out).toMatch(/\nplan 'killed': DONE=2 · spent \$0\.025 ·/);
    expect(agents().map((a) => a.task)).toEqual(["K-1", "K-1", "K-2"]);

    const { events, done } = await withStore(repo, async (store) => ({
      events: await store.listEvents("killed"),
      done: await store.getTask("killed", "K-1"),
    }));
    const k1 = events.filter((e) => e.taskId === "K-1").map((e) => e.eventType);
    expect(k1).toEqual(["task.created", "CLAIM", "START", "RELEASE", "CLAIM", "START", "COMPLETE"]);
    const release = events.find((e) => e.eventType === "RELEASE");
    expect(release?.payload).toMatchObject({ reason: "worker_offline", worker_id: deadWorker });
    expect(done).toMatchObject({ status: "DONE", attempts: 2 });
  });

  it("serves a second process's commands while a run holds the embedded store, refuses a second run, and the run goes on", async () => {
    const { repo, scratch, env, agents } = setup({});
    const go = join(scratch, "go");
    const waiting = fakeAgentEnv({ script: { "L-1": { until_file: go } }, log: join(scratch, "agent.log") });
    writePlan(repo, "locked", [["L-1", "high", []]]);
    const first = spawnBin(["run", "tasks.json"], { cwd: repo, env: waiting });
    try {
      await waitFor("the agent of L-1", () => agents()[0]);
      const [list, run] = await Promise.all([
        runBin(["plan", "list"], { cwd: repo, env }),
        runBin(["run", "tasks.json"], { cwd: repo, env }),
      ]);
      // Served by the run, through its socket in .whilly/.
      expect(list).toMatchObject({ code: 0, err: "" });
      expect(list.out).toMatch(/^locked +/m);
      const budget = await runCli(["plan", "budget", "locked", "5"], { cwd: repo, env });
      expect(budget).toMatchObject({ code: 0, err: "" });
      const events = await runCli(["events", "locked"], { cwd: repo, env });
      expect(events.out).toMatch(/CLAIM[\s\S]*START[\s\S]*plan\.budget_changed/);
      // A run owns the store itself, so a second one is refused.
      const store = join(repo, ".whilly", "pgdata");
      expect(run.code).toBe(1);
      expect(run.out).toBe("");
      const [error, hint, rest] = run.err.split("\n");
      expect(error).toContain(
        `error: the embedded store at ${store} is in use by another whilly process (\`whilly run\`, pid ${first.child.pid} on host '${hostname()}' (this one), since `,
      );
      expect(error).toContain(`; lock file ${store}.lock)`);
      expect(hint).toBe(
        `hint: wait for it to finish (or stop it: kill ${first.child.pid}), or set WHILLY_DATABASE_URL to share a Postgres server between processes`,
      );
      expect(rest).toBe("");
    } finally {
      writeFileSync(go, "");
    }
    const result = await first.done;
    expect(result.code).toBe(0);
    // The budget set through the run's socket is the run's own.
    expect(result.out).toMatch(/\nplan 'locked': DONE=1 · spent \$0\.0125 of \$5\.00 budget ·/);
    expect(agents().map((a) => a.task)).toEqual(["L-1"]);
  });

  it("on SIGINT stops the agent's process group, releases the task (shutdown) and exits 130", async () => {
    const { repo, env, agents } = setup({ "I-1": { outcome: "hang" } });
    writePlan(repo, "interrupted", [
      ["I-1", "high", []],
      ["I-2", "low", []],
    ]);
    const run = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    const agent = await waitFor("the agent of I-1", () => agents().find((a) => a.grandchild !== undefined));
    leftovers.push(agent.pid);
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.err).toContain("whilly: SIGINT received; stopping (again to force)\n");
    expect(result.err).toMatch(/↩ I-1 released \(shutdown\)\n/);
    expect(result.out).toMatch(/^I-1 +PENDING +0\/1 /m);
    expect(result.out).toMatch(/^I-2 +PENDING +0\/1 /m);
    expect(agents().map((a) => a.task)).toEqual(["I-1"]);
    expect(processGone(agent.pid)).toBe(true);
    expect(processGone(agent.grandchild ?? 0)).toBe(true);

    const events = await eventsOf(repo, "interrupted");
    expect(events.filter((e) => e.taskId === "I-1").map((e) => e.eventType)).toEqual([
      "task.created",
      "CLAIM",
      "START",
      "RELEASE",
    ]);
    expect(events.find((e) => e.eventType === "RELEASE")?.payload).toMatchObject({ reason: "shutdown" });
  });
});
