import { join } from "node:path";
import { ConfigurationError, TaskNotFound, VersionConflict } from "@whilly/core";
import { createApp, createTokenAuth, openEmbeddedStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { baseEnv, makeRepo, makeStoreTemplate, removeAll, runCli } from "../../../test/support/cli.js";
import { serveOnLoopback } from "../../../worker-api/src/app/testing/serve-loopback.js";
import { plan, task } from "../../../worker-api/src/store/contract/helpers.contract.js";
import { openPgliteFixture, type StoreFixture } from "../../../worker-api/src/store/testing/fixtures.js";
import { remoteControlActions } from "./actions.js";

// The operator actions through the CLI's verbs, on the embedded store and over HTTP (--connect), and
// remoteControlActions' errors as the dashboard gets them.

const BOOTSTRAP = "cli-actions-bootstrap-token";
const ADMIN = "cli-actions-admin-token-0001";

afterAll(removeAll);

/** Claims and starts the next task of plan `p` as `workerId`. */
async function running(store: Store, workerId: string) {
  await store.upsertWorker({ workerId, hostname: "h" });
  const claimed = await store.claim({ planId: "p", workerId, leaseMs: 60_000, start: true });
  if (!claimed) throw new Error("nothing claimed");
  return claimed;
}

describe("whilly plan release|retry and whilly worker pause|resume on the embedded store", () => {
  let repo: string;
  const store = async <T>(use: (s: Store) => Promise<T>): Promise<T> => {
    const opened = await openEmbeddedStore(join(repo, ".whilly", "pgdata"), {
      cacheDir: process.env.WHILLY_CACHE_DIR,
    });
    try {
      return await use(opened);
    } finally {
      await opened.close();
    }
  };

  beforeAll(async () => {
    repo = makeRepo(await makeStoreTemplate());
    await store((s) => s.importPlan(plan("p", [task("A"), task("B")])));
  });

  it("releases a running task and pauses every worker, through the store", async () => {
    const claimed = await store((s) => running(s, "w1"));
    const released = await runCli(["plan", "release", "p", claimed.id], { cwd: repo });
    expect(released).toMatchObject({ code: 0, out: "released task 'A' of plan 'p': it is PENDING again.\n" });
    expect((await runCli(["worker", "pause"], { cwd: repo })).out).toContain("workers paused");
    await store(async (s) => {
      expect(await s.getTask("p", "A")).toMatchObject({ status: "PENDING" });
      expect(await s.readWorkersPause()).toMatchObject({ reason: "admin" });
      expect(await s.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 })).toBeUndefined();
    });
  });
});

describe("the operator actions over HTTP", () => {
  let fixture: StoreFixture;
  let store: Store;
  let server: { url: string; close(): Promise<void> };
  let cwd: string;

  beforeAll(async () => {
    fixture = await openPgliteFixture();
    const app = createApp({
      withStore: (use) => use(store),
      auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN }),
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    server = await serveOnLoopback(app);
    cwd = makeRepo();
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });
  beforeEach(async () => {
    store = await fixture.fresh();
    // One attempt: the first failure is final, so the task is FAILED for a retry.
    await store.importPlan(plan("p", [task("A"), task("B")], { maxAttempts: 1 }));
  });

  it("remoteControlActions acts with the admin token and throws the project's errors", async () => {
    const actions = remoteControlActions({ url: `${server.url}/`, token: ADMIN });
    await running(store, "w1");
    await actions.releaseTask("p", "A");
    expect((await store.getTask("p", "A"))?.status).toBe("PENDING");
    const conflict = await actions.resetTask("p", "A").catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(VersionConflict);
    expect(conflict).toMatchObject({ actualStatus: "PENDING", taskId: "A", planId: "p" });
    expect(await actions.releaseTask("p", "nope").catch((error: unknown) => error)).toBeInstanceOf(
      TaskNotFound,
    );
    await actions.pauseWorkers();
    expect(await store.readWorkersPause()).toMatchObject({ reason: "admin" });
    await actions.resumeWorkers();
    expect(await store.readWorkersPause()).toBeUndefined();
    const refused = await remoteControlActions({ url: server.url, token: "not-the-admin-token" })
      .pauseWorkers()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigurationError);
    expect(String((refused as Error).message)).toContain("401 missing_or_invalid_admin_token");
  });

  it("whilly plan retry|release --connect name the status of a task they may not act on", async () => {
    const env = baseEnv({ WHILLY_ADMIN_TOKEN: ADMIN });
    const release = await runCli(["plan", "release", "p", "A", "--connect", server.url], { cwd, env });
    expect(release.code).toBe(1);
    expect(release.err).toContain(
      "task 'A' of plan 'p' is PENDING; a CLAIMED or IN_PROGRESS task can be released",
    );
    const task = await running(store, "w1");
    await store.fail({
      planId: "p",
      taskId: "A",
      workerId: "w1",
      version: task.version,
      costMicroUsd: 0,
      reason: "x",
    });
    expect((await store.getTask("p", "A"))?.status).toBe("FAILED");
    const retried = await runCli(["plan", "retry", "p", "A", "--connect", server.url], { cwd, env });
    expect(retried).toMatchObject({
      code: 0,
      out: "task 'A' of plan 'p' is PENDING again, with fresh attempts.\n",
    });
    const twice = await runCli(["plan", "retry", "p", "A", "--connect", server.url], { cwd, env });
    expect(twice.code).toBe(1);
    expect(twice.err).toContain("task 'A' of plan 'p' is PENDING; only a FAILED task can be retried");
    const missing = await runCli(["plan", "retry", "p", "nope", "--connect", server.url], { cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("task 'nope' not found in plan 'p'");
  });

  it("whilly worker pause --connect takes WHILLY_ADMIN_TOKEN and exits 2 without it", async () => {
    const env = baseEnv({ WHILLY_ADMIN_TOKEN: ADMIN });
    expect((await runCli(["worker", "pause", "--connect", server.url], { cwd, env })).code).toBe(0);
    expect(await store.readWorkersPause()).toBeDefined();
    const bare = await runCli(["worker", "resume", "--connect", server.url], { cwd });
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("WHILLY_ADMIN_TOKEN is not set");
    expect((await runCli(["worker", "resume", "--connect", server.url], { cwd, env })).code).toBe(0);
    expect(await store.readWorkersPause()).toBeUndefined();
  });
});
