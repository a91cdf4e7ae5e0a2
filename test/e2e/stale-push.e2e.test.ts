import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  cleanUp,
  FIXTURES,
  git,
  type Identity,
  type Proc,
  scratchDir,
  sharedOrigin,
  startControlPlane,
  startWorkerProcess,
  waitUntil,
  whilly,
  writePlan,
} from "./distributed-support.js";

// A worker that lost its lease while its agent ran (the machine slept: SIGSTOP here) must not push: the
// task went to another worker, which pushed and completed it, and origin's task branch must keep holding
// the commit the control plane recorded, or every dependent's fetch of it fails.
const LEASE_S = 2;
const PLAN = "stale";
const BY_TASK = join(FIXTURES, "fake-agents", "by-task.mjs");

const plan = {
  plan_id: PLAN,
  project: "One task, run twice",
  tasks: [
    {
      id: "A",
      status: "pending",
      priority: "high",
      description: "Write a.txt.",
      acceptance_criteria: ["a.txt exists"],
      test_steps: ["test -f a.txt"],
    },
  ],
};

let db: TestDatabase;
let store: Store;
let controlUrl: string;
let alice: Identity;
let bob: Identity;
let origin: string;
let pushes: string;
let clones: Map<string, string>;

/** A worker whose agent (by-task.mjs) writes a.txt holding `mark`, once `untilFile` exists if given. */
function startWorker(who: Identity, mark: string, argv: string[], untilFile?: string): Proc {
  const step = { files: { "a.txt": `${mark}\n` }, ...(untilFile ? { until_file: untilFile } : {}) };
  return startWorkerProcess({
    who,
    controlUrl,
    planId: PLAN,
    workdir: clones.get(mark) ?? "",
    fakeUrl: "http://127.0.0.1:9",
    argv,
    env: {
      CLAUDE_BIN: BY_TASK,
      FAKE_AGENT_SCRIPT: JSON.stringify({ A: step }),
      FAKE_AGENT_LOG: join(scratchDir("whilly-agent-log-"), `${mark}.log`),
    },
  });
}

describe.skipIf(!postgresAvailable())("a worker that lost its lease while its agent ran", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const plane = await startControlPlane(db.url, LEASE_S);
    controlUrl = plane.url;
    [alice, bob] = await Promise.all([plane.register(), plane.register()]);
    await whilly(["plan", "import", writePlan(plan)], plane.env);
    store = await openPostgresStore(db.url, { max: 2 });
    ({ origin, clones, pushes } = sharedOrigin(["alice", "bob"]));
  }, 90_000);

  afterAll(async () => {
    await cleanUp();
    await store?.close();
    await db?.drop();
  });

  it("does not push over the work of the worker that completed the task", async () => {
    const go = join(scratchDir("whilly-go-"), "go");
    const stale = startWorker(alice, "alice", ["--push", "--once"], go);
    await waitUntil("alice's agent on A", async () => {
      const task = await store.getTask(PLAN, "A");
      return task?.status === "IN_PROGRESS" && task.claimedBy === alice.workerId ? true : undefined;
    });
    // Alice's machine sleeps: no heartbeat, the lease runs out, and bob runs A.
    stale.child.kill("SIGSTOP");
    await waitUntil("A back to PENDING", async () =>
      (await store.getTask(PLAN, "A"))?.status === "PENDING" ? true : undefined,
    );
    const other = await startWorker(bob, "bob", ["--push", "--once"]).ended;
    expect(other.code, other.err).toBe(0);
    const done = await store.getTask(PLAN, "A");
    expect(done?.status).toBe("DONE");
    const recorded = done?.work?.commit ?? "";
    const branch = done?.work?.branch ?? "";
    expect(git(origin, "rev-parse", `refs/heads/${branch}`)).toBe(recorded);

    // Alice wakes up and her agent finishes.
    stale.child.kill("SIGCONT");
    writeFileSync(go, "");
    const ended = await stale.ended;
    expect(ended.err).toContain(
      "A: lease lost, result dropped (A was taken from this worker while it ran (an operator released it, or its lease ran out and another worker took it): its work was not published)",
    );
    expect(git(origin, "rev-parse", `refs/heads/${branch}`)).toBe(recorded);
    expect(git(origin, "show", `refs/heads/${branch}:a.txt`)).toBe("bob");
    const pushed = readFileSync(pushes, "utf8").trim().split("\n");
    expect(pushed).toEqual([`refs/heads/${branch} ${recorded}`]);
  }, 120_000);
});
