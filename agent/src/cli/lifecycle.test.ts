import { fileURLToPath } from "node:url";
import { parsePlanObject } from "@whilly/core";
import { createApp, createTokenAuth, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { serveOnLoopback } from "../../../worker-api/src/app/testing/serve-loopback.js";
import { openPgliteFixture, type StoreFixture } from "../../../worker-api/src/store/testing/fixtures.js";
import type { AgentAttempt, RunAttempt } from "../worker/types.js";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

// whilly-worker against a real control plane (the app on an in-memory PGlite, served over HTTP): what
// it says when it is stopped, revoked, or has nothing to do.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const BOOTSTRAP = "agent-lifecycle-bootstrap-token";
const done: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 0, aborted: false, detail: {} };

function testIo(env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const interrupt = new AbortController();
  const io: WorkerIo = {
    out: { write: (t: string) => (out += t) },
    err: { write: (t: string) => (err += t) },
    env,
    cwd: root,
    interrupt: interrupt.signal,
  };
  return { io, interrupt, out: () => out, err: () => err };
}

/** Resolves once `check` holds, polling every 5 ms; the test's own timeout bounds it. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

let fixture: StoreFixture;
let store: Store;
let url: string;
let stopServer: () => Promise<void>;

beforeAll(async () => {
  fixture = await openPgliteFixture();
  const app = createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    settings: { leaseMs: 60_000, claimWaitMs: 50, claimRecheckMs: 1000 },
  });
  const served = await serveOnLoopback(app);
  url = served.url;
  stopServer = served.close;
});
afterAll(async () => {
  await stopServer?.();
  await fixture?.close();
});
beforeEach(async () => {
  store = await fixture.fresh();
});

/** Imports plan `p` with tasks of the given ids and statuses. */
async function importPlan(tasks: Record<string, string>): Promise<void> {
  const spec = {
    plan_id: "p",
    project: "p",
    tasks: Object.entries(tasks).map(([id, status]) => ({ id, status, priority: "high", description: id })),
  };
  await store.importPlan(parsePlanObject(spec, "test"));
}

/** Registers a worker and returns the environment that runs it on plan `p`. */
async function workerEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const t = testIo();
  await workerMain(["register", "--connect", url, "--bootstrap-token", BOOTSTRAP, "--hostname", "h"], t.io);
  return { WHILLY_CONTROL_URL: url, WHILLY_WORKER_TOKEN: t.out().trim(), WHILLY_PLAN_ID: "p", ...extra };
}

describe("whilly-worker's messages match its state", () => {
  it("revoked mid-task, says the task was not handed back, not that a result was dropped", async () => {
    await importPlan({ A: "pending" });
    const t = testIo(await workerEnv());
    // The agent revokes its own worker, then runs until the worker stops it (the refused heartbeat).
    const revokedAgent: RunAttempt = async ({ signal }) => {
      const [worker] = await store.listWorkers();
      await store.revokeWorker(worker?.workerId ?? "");
      await until(() => signal.aborted);
      return { ...done, aborted: true };
    };
    const argv = ["--heartbeat-interval", "0.02"];
    expect(await workerMain(argv, t.io, { makeRunAttempt: () => revokedAgent })).toBe(2);
    expect(t.err()).toContain(
      "whilly-worker: A not handed back (invalid token); the control plane requeues it at the latest when its lease runs out\n",
    );
    expect(t.err()).not.toContain("result dropped");
    expect(t.err()).toContain("error: the control plane refused the token");
    expect(t.err()).toContain(" released_on_shutdown=0 lost=0\n");
    expect((await store.getTask("p", "A"))?.status).toBe("PENDING");
  });

  it("stopped while waiting for a task, says there is no agent to stop", async () => {
    await importPlan({ A: "pending" });
    await store.upsertWorker({ workerId: "other", hostname: "h" });
    await store.claim({ planId: "p", workerId: "other", leaseMs: 60_000 });
    const t = testIo(await workerEnv());
    const running = workerMain(["--plan", "p"], t.io, { makeRunAttempt: () => async () => done });
    await until(() => t.err().includes("agent in "));
    t.interrupt.abort("SIGTERM");
    expect(await running).toBe(130);
    expect(t.err()).toContain(
      "whilly-worker: SIGTERM received; stopping (no task in hand; again to force)\n",
    );
    expect(t.err()).not.toContain("stopping the agent");
  });
});

describe("whilly-worker with nothing to do", () => {
  it("with --once or --max-iterations exits 0 at once when the plan has no open task", async () => {
    await importPlan({ A: "done", B: "failed", C: "skipped" });
    for (const bound of [["--once"], ["--max-iterations", "5"]]) {
      const t = testIo(await workerEnv());
      expect(await workerMain(bound, t.io, { makeRunAttempt: () => async () => done })).toBe(0);
      expect(t.err()).toContain(
        "whilly-worker: plan 'p' has no open task (DONE=1 FAILED=1 SKIPPED=1); nothing to wait for, stopping\n",
      );
      expect(t.err()).toContain("finished — iterations=0 ");
    }
  });

  it("says every WHILLY_PROGRESS_INTERVAL that it waits, and which tasks are open", async () => {
    await importPlan({ A: "pending", B: "done" });
    await store.upsertWorker({ workerId: "other", hostname: "h" });
    await store.claim({ planId: "p", workerId: "other", leaseMs: 60_000 });
    const t = testIo(await workerEnv({ WHILLY_PROGRESS_INTERVAL: "0.05" }));
    // --once: the plan still has an open task (another worker's), so the worker waits for it.
    const running = workerMain(["--once"], t.io, { makeRunAttempt: () => async () => done });
    const waiting = "whilly-worker: waiting for a ready task in plan 'p' (open: CLAIMED=1) for ";
    await until(() => t.err().includes(waiting));
    // The other worker's task fails for good (one attempt): nothing is open any more, and the bounded
    // worker ends.
    await store.setPlanMaxAttempts("p", 1);
    const [task] = await store.listTasks("p");
    await store.fail({
      planId: "p",
      taskId: "A",
      workerId: "other",
      version: task?.version ?? 0,
      reason: "x",
      costMicroUsd: 0,
    });
    expect(await running).toBe(0);
    expect(t.err()).toContain("plan 'p' has no open task (DONE=1 FAILED=1); nothing to wait for, stopping\n");
  });

  it("without a bound keeps waiting on a plan with no open task, saying so", async () => {
    await importPlan({ A: "done" });
    const t = testIo(await workerEnv({ WHILLY_PROGRESS_INTERVAL: "0.05" }));
    const running = workerMain([], t.io, { makeRunAttempt: () => async () => done });
    await until(() => t.err().includes("waiting for a ready task in plan 'p' (no open task: DONE=1) for "));
    t.interrupt.abort("SIGINT");
    expect(await running).toBe(130);
  });
});
