import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { EventRecord } from "@whilly/core";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  cleanUp,
  FIXTURES,
  git,
  type Identity,
  sharedOrigin,
  startControlPlane,
  startWorkerProcess,
  waitUntil,
  whilly,
  writePlan,
} from "./distributed-support.js";

// A remote that accepts connections and never answers: the worker's fetch of a dependency's work hangs
// (for up to the 5 minute network limit). A stop asked for meanwhile must not wait for it.
const PLAN = "hung";
const plan = {
  plan_id: PLAN,
  project: "A dependency fetched from a remote that hangs",
  tasks: ["A", "B"].map((id) => ({
    id,
    status: "pending",
    priority: "high",
    description: `Do ${id}.`,
    dependencies: id === "B" ? ["A"] : [],
    acceptance_criteria: [`${id} done`],
    test_steps: ["true"],
  })),
};

let db: TestDatabase;
let store: Store;
let controlUrl: string;
let alice: Identity;
let remote: Server;
const sockets: Socket[] = [];

describe.skipIf(!postgresAvailable())("a worker whose remote hangs", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const plane = await startControlPlane(db.url, 30);
    controlUrl = plane.url;
    alice = await plane.register();
    await whilly(["plan", "import", writePlan(plan)], plane.env);
    store = await openPostgresStore(db.url, { max: 2 });
    remote = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
  }, 90_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    remote?.close();
    await cleanUp();
    await store?.close();
    await db?.drop();
  });

  it("stops at once on SIGTERM while fetching a dependency's work, handing the task back", async () => {
    // A DONE elsewhere, its work on a remote this machine cannot reach.
    await store.upsertWorker({ workerId: "w-elsewhere", hostname: "elsewhere" });
    const a = await store.claim({ planId: PLAN, workerId: "w-elsewhere", leaseMs: 60_000, start: true });
    const work = { branch: "whilly-tasks/hung/a", commit: "1".repeat(40) };
    const fence = { planId: PLAN, taskId: "A", workerId: "w-elsewhere", version: a?.version ?? 0 };
    await store.complete({ ...fence, costMicroUsd: 0, work });

    const clone = sharedOrigin(["alice"]).clones.get("alice") ?? "";
    const port = (remote.address() as { port: number }).port;
    git(clone, "remote", "set-url", "origin", `http://127.0.0.1:${port}/project.git`);
    const worker = startWorkerProcess({
      who: alice,
      controlUrl,
      planId: PLAN,
      workdir: clone,
      fakeUrl: "http://127.0.0.1:9",
      argv: ["--push"],
      env: { CLAUDE_BIN: join(FIXTURES, "fake-agents", "success.mjs") },
    });
    await waitUntil("the fetch to reach the remote", async () => (sockets.length > 0 ? true : undefined));
    expect((await store.getTask(PLAN, "B"))?.status).toBe("IN_PROGRESS");

    const stoppedAt = Date.now();
    worker.child.kill("SIGTERM");
    const ended = await worker.ended;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(ended.code, ended.err).toBe(130);
    const b = await store.getTask(PLAN, "B");
    expect(b).toMatchObject({ status: "PENDING", attempts: 0 });
    const events = await store.listEvents(PLAN, { limit: 100 });
    const released = events.filter((e: EventRecord) => e.eventType === "RELEASE" && e.taskId === "B");
    expect(released.map((e) => e.payload.reason)).toEqual(["shutdown"]);
  }, 120_000);
});
