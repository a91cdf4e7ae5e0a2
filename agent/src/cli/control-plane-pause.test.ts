import { fileURLToPath } from "node:url";
import { parsePlanObject } from "@whilly/core";
import { createApp, createTokenAuth, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveOnLoopback } from "../../../worker-api/src/app/testing/serve-loopback.js";
import { openPgliteFixture, type StoreFixture } from "../../../worker-api/src/store/testing/fixtures.js";
import type { AgentAttempt } from "../worker/types.js";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

// whilly-worker's loop against a real control plane (in process, over HTTP) that an operator pauses
// while the worker runs a task: the task completes, later claims get nothing, and after a resume the
// worker claims again.

const root = fileURLToPath(new URL("../../../", import.meta.url));
const BOOTSTRAP = "agent-pause-bootstrap-token";
const done: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 0, aborted: false, detail: {} };

function testIo() {
  let out = "";
  let err = "";
  const io: WorkerIo = {
    out: { write: (t: string) => (out += t) },
    err: { write: (t: string) => (err += t) },
    env: {},
    cwd: root,
  };
  return { io, out: () => out, err: () => err };
}

let fixture: StoreFixture;
let store: Store;
let url: string;
let stopServer: () => Promise<void>;

beforeAll(async () => {
  fixture = await openPgliteFixture();
  store = await fixture.fresh();
  const app = createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    // Claims answer at once: the worker's idle polls below need no long-poll wait.
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
  const served = await serveOnLoopback(app);
  url = served.url;
  stopServer = served.close;
  const tasks = ["A", "B"].map((id) => ({ id, status: "pending", priority: "high", description: id }));
  await store.importPlan(parsePlanObject({ plan_id: "p", project: "p", tasks }, "test"));
});
afterAll(async () => {
  await stopServer?.();
  await fixture?.close();
});

describe("whilly-worker under an operator's pause", () => {
  it("finishes the task it runs when paused, claims nothing more, and claims again after a resume", async () => {
    const register = testIo();
    expect(
      await workerMain(["register", "--connect", url, "--bootstrap-token", BOOTSTRAP], register.io),
    ).toBe(0);
    const token = register.out().trim();

    // The agent's attempt pauses the control plane mid-task, as an operator would.
    const paused = testIo();
    const pausingAttempt = async () => {
      await store.pauseWorkers();
      return done;
    };
    const argv = ["--connect", url, "--token", token, "--plan", "p", "--max-iterations", "2"];
    expect(await workerMain(argv, paused.io, { makeRunAttempt: () => pausingAttempt })).toBe(0);
    expect((await store.listTasks("p")).map((t) => t.status)).toEqual(["DONE", "PENDING"]);

    await store.resumeWorkers();
    const resumed = testIo();
    const once = ["--connect", url, "--token", token, "--plan", "p", "--once"];
    expect(await workerMain(once, resumed.io, { makeRunAttempt: () => async () => done })).toBe(0);
    expect((await store.listTasks("p")).map((t) => t.status)).toEqual(["DONE", "DONE"]);
  });
});
