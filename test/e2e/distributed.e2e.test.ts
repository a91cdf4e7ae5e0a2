import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_TYPES, type EventRecord } from "@whilly/core";
import { type FakeAnthropic, startFakeAnthropic } from "@whilly/fake-anthropic";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  checkoutOf,
  cleanUp,
  FIXTURES,
  git,
  gitWorkdir,
  type Identity,
  killGroup,
  type Proc,
  scratchDir,
  sharedOrigin,
  startControlPlane,
  startWorkerProcess,
  waitUntil,
  whilly,
  workOf,
  writePlan,
} from "./distributed-support.js";

// Distributed mode end to end, every part a real process: `whilly server` on a fresh Postgres database,
// two workers registered with their own tokens (`whilly worker register`), and `whilly-worker`
// processes running the REAL Claude Code CLI against the project's scripted fake of the Messages API,
// each in its own git clone of one bare origin, pushing each DONE task's branch to it. Leases are 3 s
// and the sweep runs every half second, so expiry and renewal happen within the test.
const LEASE_S = 3;
const HANG_AGENT = join(FIXTURES, "fake-agents", "hang.mjs");

let db: TestDatabase;
let store: Store;
let url: string;
let demoFake: FakeAnthropic;
/** Fakes a test started for its own script; closed after the file. */
const fakes: FakeAnthropic[] = [];
let alice: Identity;
let bob: Identity;

/** Task `id` of a one-task plan, with test steps the scripted model's file satisfies. */
function oneTaskPlan(planId: string, taskId: string, file: string) {
  return {
    plan_id: planId,
    project: planId,
    tasks: [
      {
        id: taskId,
        status: "pending",
        priority: "high",
        description: `Write ${file}.`,
        test_steps: [`test -s ${file}`],
      },
    ],
  };
}

/** A script for the fake model: the task writes `file`, optionally after a pause, then claims completion. */
function writesFile(taskId: string, file: string, delayMs = 0) {
  return {
    tasks: {
      [taskId]: {
        turns: [
          {
            tool_use: { name: "Write", input: { file_path: `{{cwd}}/${file}`, content: `${taskId} done\n` } },
            ...(delayMs > 0 ? { delay_ms: delayMs } : {}),
          },
          { text: `Wrote ${file}. <promise>COMPLETE</promise>` },
        ],
      },
    },
  };
}

/** Starts `whilly-worker` for `who` on `planId`, with Claude Code pointed at `fake` (or another agent). */
function startWorker(
  who: Identity,
  planId: string,
  options: { workdir: string; fake?: FakeAnthropic; env?: Record<string, string>; push?: boolean },
): Proc {
  const fakeUrl = (options.fake ?? demoFake).url;
  const argv = options.push ? ["--push"] : [];
  return startWorkerProcess({ who, controlUrl: url, planId, fakeUrl, argv, ...options });
}

/** Waits until every task of the plan is DONE; fails at once if one FAILED. */
async function allDone(planId: string, workers: readonly Proc[], timeoutMs = 90_000) {
  return waitUntil(
    `every task of '${planId}' DONE`,
    async () => {
      const tasks = await store.listTasks(planId);
      const failed = tasks.filter((t) => t.status === "FAILED");
      if (failed.length > 0) {
        const logs = workers.map((w) => w.err()).join("\n---\n");
        throw new Error(`${failed.map((t) => t.id).join(", ")} FAILED:\n${logs}`);
      }
      return tasks.every((t) => t.status === "DONE") ? tasks : undefined;
    },
    timeoutMs,
  );
}

/** SIGTERM, then the exit: a worker that stops cleanly exits 130 and prints its stats line. */
async function stopWorker(worker: Proc) {
  worker.child.kill("SIGTERM");
  const ended = await worker.ended;
  expect(ended.code, ended.err).toBe(130);
  expect(ended.err).toMatch(/whilly-worker: worker '[^']+' finished — iterations=\d+ completed=\d+/);
  return ended;
}

const ofType = (events: readonly EventRecord[], type: string, taskId?: string) =>
  events.filter((e) => e.eventType === type && (taskId === undefined || e.taskId === taskId));

describe.skipIf(!postgresAvailable())("distributed mode: whilly server and whilly-worker processes", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const plane = await startControlPlane(db.url, LEASE_S);
    url = plane.url;
    const env = plane.env;
    const plans = [
      join(FIXTURES, "plans", "demo.tasks.json"),
      join(FIXTURES, "plans", "demo-parallel.tasks.json"),
      writePlan(oneTaskPlan("crash", "CRASH-1", "CRASH.md")),
      writePlan(oneTaskPlan("slow", "SLOW-1", "SLOW.md")),
    ];
    [alice, bob] = await Promise.all([plane.register(), plane.register()]);
    for (const plan of plans) await whilly(["plan", "import", plan], env);
    store = await openPostgresStore(db.url, { max: 2 });
    demoFake = await startFakeAnthropic({ scriptFile: join(FIXTURES, "scripts", "demo.json") });
  }, 90_000);

  afterAll(async () => {
    await cleanUp();
    await Promise.all([demoFake, ...fakes].map((f) => f?.close()));
    await store?.close();
    await db?.drop();
  });

  it("two workers with their own tokens and clones finish the demo plans, every task DONE exactly once", async () => {
    const { origin, clones: workdirs } = sharedOrigin([alice.workerId, bob.workerId]);
    const completedBy = new Set<string>();
    for (const planId of ["demo", "parallel"]) {
      const workers = [alice, bob].map((who) =>
        startWorker(who, planId, { workdir: workdirs.get(who.workerId) ?? "", push: true }),
      );
      const tasks = await allDone(planId, workers);
      for (const ended of await Promise.all(workers.map(stopWorker))) {
        expect(ended.err).toContain("released_on_shutdown=0 lost=0");
      }

      const events = await store.listEvents(planId, { limit: 10_000 });
      for (const task of tasks) {
        const claims = ofType(events, "CLAIM", task.id);
        const completes = ofType(events, "COMPLETE", task.id);
        expect(claims, `${task.id} claimed once`).toHaveLength(1);
        expect(completes, `${task.id} completed once`).toHaveLength(1);
        expect(ofType(events, "RELEASE", task.id)).toEqual([]);
        const worker = String(completes[0]?.payload.worker_id);
        expect(claims[0]?.payload.worker_id).toBe(worker);
        completedBy.add(worker);
        // The agent really did the task: its work, pushed to origin, passes the task's test steps.
        const work = workOf(completes[0]);
        expect(git(origin, "rev-parse", `refs/heads/${work.branch}`)).toBe(work.commit);
        const tree = checkoutOf(origin, work.commit);
        for (const step of task.testSteps) execFileSync("bash", ["-c", step], { cwd: tree, stdio: "pipe" });
        // Its worktree started from its dependencies' work, wherever they ran.
        for (const dependency of task.dependencies) {
          const before = workOf(ofType(events, "COMPLETE", dependency)[0]).commit;
          expect(git(origin, "merge-base", "--is-ancestor", before, work.commit)).toBe("");
        }
      }
      expect(ofType(events, "FAIL")).toEqual([]);
      if (planId === "demo") {
        // A dependent is claimed only after its dependency completed.
        const at = (type: string, id: string) => ofType(events, type, id)[0]?.id ?? Number.NaN;
        expect(at("CLAIM", "DEMO-003")).toBeGreaterThan(at("COMPLETE", "DEMO-001"));
        expect(at("CLAIM", "DEMO-004")).toBeGreaterThan(at("COMPLETE", "DEMO-002"));
      }
    }
    expect([...completedBy].sort()).toEqual([alice.workerId, bob.workerId].sort());
  }, 150_000);

  it("re-runs a SIGKILLed worker's task on the other worker once the lease expires; the late complete gets 409", async () => {
    const crashFake = await startFakeAnthropic({ script: writesFile("CRASH-1", "CRASH.md") });
    fakes.push(crashFake);
    const pidFile = join(scratchDir("whilly-pids-"), "agent.pids");
    const crashed = startWorker(alice, "crash", {
      workdir: gitWorkdir("alice-crash"),
      env: { CLAUDE_BIN: HANG_AGENT, FAKE_AGENT_PID_FILE: pidFile },
    });
    const pids = await waitUntil("alice's agent to start", async () =>
      existsSync(pidFile) ? readFileSync(pidFile, "utf8") : undefined,
    );
    const held = await store.getTask("crash", "CRASH-1");
    expect(held).toMatchObject({ status: "IN_PROGRESS", claimedBy: alice.workerId });
    const heldVersion = held?.version ?? -1;

    const bobsRepo = gitWorkdir("bob-crash");
    const survivor = startWorker(bob, "crash", { workdir: bobsRepo, fake: crashFake });
    crashed.child.kill("SIGKILL");
    expect((await crashed.ended).signal).toBe("SIGKILL");
    // The agent outlives its SIGKILLed worker (it has its own process group); end it.
    killGroup(Number(pids.split(" ")[0]));

    const [done] = await allDone("crash", [survivor]);
    const events = await store.listEvents("crash", { limit: 1000 });
    const { commit } = workOf(ofType(events, "COMPLETE")[0]);
    expect(git(bobsRepo, "show", `${commit}:CRASH.md`)).toBe("CRASH-1 done");
    expect(ofType(events, "CLAIM").map((e) => e.payload.worker_id)).toEqual([alice.workerId, bob.workerId]);
    expect(ofType(events, "RELEASE").map((e) => e.payload.reason)).toEqual(["visibility_timeout"]);
    expect(ofType(events, "COMPLETE").map((e) => e.payload.worker_id)).toEqual([bob.workerId]);

    // The dead worker's result arrives late, from its own identity, at the version it held.
    const late = await fetch(`${url}/tasks/CRASH-1/complete`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        worker_id: alice.workerId,
        plan_id: "crash",
        version: heldVersion,
        cost_usd: "1.5",
      }),
    });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({
      error_code: "version_conflict",
      task_id: "CRASH-1",
      expected_version: heldVersion,
      actual_version: done?.version,
      actual_status: "DONE",
    });
    const after = await store.getTask("crash", "CRASH-1");
    expect(after).toMatchObject({
      status: "DONE",
      version: done?.version,
      spentMicroUsd: done?.spentMicroUsd,
    });
    // Heartbeat events go through the event buffer, so one from before the complete may land later;
    // what the late complete must not add is an audit row of its own.
    const audit = (list: typeof events) => list.filter((e) => e.eventType !== EVENT_TYPES.workerHeartbeat);
    expect(audit(await store.listEvents("crash", { limit: 1000 }))).toEqual(audit(events));
    await stopWorker(survivor);
  }, 90_000);

  it("does not re-run a task that outlives the lease while its worker heartbeats", async () => {
    const slowFake = await startFakeAnthropic({
      script: writesFile("SLOW-1", "SLOW.md", 2 * LEASE_S * 1000),
    });
    fakes.push(slowFake);
    const worker = startWorker(alice, "slow", { workdir: gitWorkdir("alice-slow"), fake: slowFake });
    await allDone("slow", [worker]);
    const ended = await stopWorker(worker);
    expect(ended.err).toContain("released_on_shutdown=0 lost=0");
    const events = await store.listEvents("slow", { limit: 1000 });
    const claims = ofType(events, "CLAIM");
    const completes = ofType(events, "COMPLETE");
    expect(claims).toHaveLength(1);
    expect(completes).toHaveLength(1);
    expect(ofType(events, "RELEASE")).toEqual([]);
    expect((await store.getTask("slow", "SLOW-1"))?.attempts).toBe(1);
    // The premise: the task really was held longer than one lease.
    const heldMs = (completes[0]?.createdAt.getTime() ?? 0) - (claims[0]?.createdAt.getTime() ?? 0);
    expect(heldMs).toBeGreaterThan(LEASE_S * 1000);
  }, 90_000);
});
