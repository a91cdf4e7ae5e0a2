import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EventRecord, TaskRecord } from "@whilly/core";
import { type FakeAnthropic, startFakeAnthropic } from "@whilly/fake-anthropic";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import { bash, COMPLETE, write } from "./attempts-support.js";
import {
  cleanUp,
  FIXTURES,
  git,
  type Identity,
  killGroup,
  type Proc,
  scratchDir,
  sharedOrigin,
  startControlPlane,
  startNode,
  startWorkerProcess,
  WHILLY_BIN,
  waitUntil,
  whilly,
  writePlan,
} from "./distributed-support.js";

// The branch flow end to end: `whilly server` on Postgres, two `whilly-worker --push` processes with
// their own clones of one bare `origin`, the REAL Claude Code CLI against the scripted fake model, and
// `whilly plan integrate` in a user's clone. C-2 needs C-1's file: its worktree must start from C-1's
// pushed work, or its test step fails. The first worker on C-2 is SIGKILLed mid-task; the lease runs
// out and the other worker runs C-2 again, fetching C-1's work from origin.
const LEASE_S = 3;
const PLAN = "chain";
const HANG_AGENT = join(FIXTURES, "fake-agents", "hang.mjs");

const plan = {
  plan_id: PLAN,
  project: "Chain of two tasks on two machines",
  verify: ["test ! -e two.txt || grep -q one one.txt"],
  tasks: [
    {
      id: "C-1",
      status: "pending",
      priority: "high",
      description: "Write one.txt holding the word one.",
      acceptance_criteria: ["one.txt holds one"],
      test_steps: ["grep -q one one.txt"],
    },
    {
      id: "C-2",
      status: "pending",
      priority: "high",
      dependencies: ["C-1"],
      description: "Write two.txt from one.txt, then the word two.",
      acceptance_criteria: ["two.txt holds one.txt and two"],
      test_steps: ["grep -q one two.txt", "grep -q two two.txt"],
    },
  ],
};

const script = {
  tasks: {
    "C-1": { turns: [write("one.txt", "one\n"), COMPLETE] },
    "C-2": { turns: [bash("cat one.txt > two.txt; echo two >> two.txt"), COMPLETE] },
  },
};

let db: TestDatabase;
let store: Store;
let fake: FakeAnthropic;
let controlUrl: string;
let databaseEnv: Record<string, string>;
let alice: Identity;
let bob: Identity;
let origin: string;
let pushes: string;
let clones: Map<string, string>;

function startWorker(who: Identity, workdir: string, argv: string[], env?: Record<string, string>): Proc {
  return startWorkerProcess({ who, controlUrl, planId: PLAN, workdir, fakeUrl: fake.url, argv, env });
}

const ofType = (events: readonly EventRecord[], type: string, taskId: string) =>
  events.filter((e) => e.eventType === type && e.taskId === taskId);

/** `whilly plan integrate <argv>` in `cwd` against the test database; its end, whatever the exit code. */
function integrate(cwd: string, argv: readonly string[]) {
  return startNode(WHILLY_BIN, ["plan", "integrate", PLAN, ...argv], {
    cwd,
    env: { ...databaseEnv, HOME: scratchDir("whilly-home-") },
  }).ended;
}

describe.skipIf(!postgresAvailable())("task branches through origin and whilly plan integrate", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const plane = await startControlPlane(db.url, LEASE_S);
    controlUrl = plane.url;
    databaseEnv = plane.env;
    [alice, bob] = await Promise.all([plane.register(), plane.register()]);
    await whilly(["plan", "import", writePlan(plan)], plane.env);
    store = await openPostgresStore(db.url, { max: 2 });
    fake = await startFakeAnthropic({ script });
    ({ origin, clones, pushes } = sharedOrigin(["alice", "bob", "user"]));
  }, 90_000);

  afterAll(async () => {
    await cleanUp();
    await fake?.close();
    await store?.close();
    await db?.drop();
  });

  it("runs a chain across two workers, re-runs a killed worker's task once, and integrates it", async () => {
    // Alice does C-1 and pushes it.
    const aliceClone = clones.get("alice") ?? "";
    const first = await startWorker(alice, aliceClone, ["--once", "--push"]).ended;
    expect(first.code, first.err).toBe(0);
    const one = await store.getTask(PLAN, "C-1");
    expect(one?.status).toBe("DONE");

    // Alice takes C-2 with an agent that never ends, and dies with it running.
    const pidFile = join(scratchDir("whilly-pids-"), "agent.pids");
    const dying = startWorker(alice, aliceClone, ["--push"], {
      CLAUDE_BIN: HANG_AGENT,
      FAKE_AGENT_PID_FILE: pidFile,
    });
    const pids = await waitUntil("alice's agent on C-2", async () =>
      existsSync(pidFile) ? readFileSync(pidFile, "utf8") : undefined,
    );
    const bobClone = clones.get("bob") ?? "";
    const survivor = startWorker(bob, bobClone, ["--push"]);
    dying.child.kill("SIGKILL");
    killGroup(Number(pids.split(" ")[0]));

    const two = await waitUntil(
      "C-2 DONE",
      async () => {
        const task = await store.getTask(PLAN, "C-2");
        if (task?.status === "FAILED") throw new Error(`C-2 FAILED:\n${survivor.err()}`);
        return task?.status === "DONE" ? task : undefined;
      },
      60_000,
    );
    survivor.child.kill("SIGTERM");
    expect((await survivor.ended).code).toBe(130);

    const events = await store.listEvents(PLAN, { limit: 1000 });
    expect(ofType(events, "CLAIM", "C-2").map((e) => e.payload.worker_id)).toEqual([
      alice.workerId,
      bob.workerId,
    ]);
    expect(ofType(events, "RELEASE", "C-2").map((e) => e.payload.reason)).toEqual(["visibility_timeout"]);
    const pushed = readFileSync(pushes, "utf8").trim().split("\n");
    for (const task of [one, two] as TaskRecord[]) {
      const work = task.work;
      expect(work, `${task.id} reported its work`).toBeDefined();
      const [complete] = ofType(events, "COMPLETE", task.id);
      expect(complete?.payload).toMatchObject({ branch: work?.branch, commit: work?.commit });
      // Pushed once, and origin's branch holds the reported commit.
      expect(pushed.filter((line) => line.startsWith(`refs/heads/${work?.branch} `))).toEqual([
        `refs/heads/${work?.branch} ${work?.commit}`,
      ]);
    }
    // C-2's worktree, on bob's machine, started from C-1's work fetched from origin.
    expect(git(origin, "show", `${two?.work?.commit}:two.txt`)).toBe("one\ntwo");
    expect(git(origin, "merge-base", "--is-ancestor", `${one?.work?.commit}`, `${two?.work?.commit}`)).toBe(
      "",
    );

    // The user brings the work together in a clone of their own, and pushes the branch.
    const userClone = clones.get("user") ?? "";
    const userHead = git(userClone, "rev-parse", "--abbrev-ref", "HEAD");
    const merged = await integrate(userClone, ["--push"]);
    expect(merged.code, merged.err).toBe(0);
    expect(git(origin, "show", `whilly/${PLAN}:one.txt`)).toBe("one");
    expect(git(origin, "show", `whilly/${PLAN}:two.txt`)).toBe("one\ntwo");
    expect(git(userClone, "rev-parse", `whilly/${PLAN}`)).toBe(git(origin, "rev-parse", `whilly/${PLAN}`));
    // The user's own branch and working tree are as they were.
    expect(git(userClone, "status", "--porcelain")).toBe("");
    expect(git(userClone, "rev-parse", "--abbrev-ref", "HEAD")).toBe(userHead);

    // Again: nothing left to merge, the branch stays where it is.
    const tip = git(userClone, "rev-parse", `whilly/${PLAN}`);
    const again = await integrate(userClone, []);
    expect(again.code, again.err).toBe(0);
    expect(git(userClone, "rev-parse", `whilly/${PLAN}`)).toBe(tip);
  }, 120_000);
});
