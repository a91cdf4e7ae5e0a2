import { parsePlanObject, type TaskStore } from "@whilly/core";
import { openInMemoryStore, openPostgresStore } from "@whilly/worker-api";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { localWorkerId, recoverOrphanedClaims } from "./recover.js";

const HOST = "box";
/** Both runs share this host name (two containers), and neither pid is alive in this process's view. */
const LIVE = localWorkerId(HOST, 111);
/** A second claim slot of a `--concurrency` run: its id carries the pid too. */
const SILENT = localWorkerId(HOST, 222, 2);
const notAlive = () => false;

/** Heartbeat period of the recovering run: silent means no beat for three of these (1.2 s). */
const INTERVAL_MS = 400;

/** Two same-host workers holding one task each; only LIVE has beaten within the last 1.2 s. */
async function twoRuns(store: TaskStore): Promise<void> {
  const task = (id: string) => ({ id, status: "PENDING", priority: "medium", description: id });
  const plan = parsePlanObject({ project: "p", tasks: [task("A"), task("B")] }, "test");
  await store.importPlan(plan);
  await store.upsertWorker({ workerId: SILENT, hostname: HOST });
  await store.claim({ planId: "p", workerId: SILENT, leaseMs: 600_000 });
  // Wide against the 1.2 s threshold, so a slow machine cannot make LIVE look silent too.
  await new Promise((resolve) => setTimeout(resolve, 1800));
  await store.upsertWorker({ workerId: LIVE, hostname: HOST });
  await store.claim({ planId: "p", workerId: LIVE, leaseMs: 600_000 });
  await store.heartbeat(LIVE, 600_000);
}

const drivers: { name: string; skip: boolean; open: () => Promise<TaskStore> }[] = [
  { name: "PGlite", skip: false, open: openInMemoryStore },
  {
    name: "Postgres",
    skip: !postgresAvailable(),
    open: async () => {
      const database = await createTestDatabase();
      databases.push(database);
      return openPostgresStore(database.url);
    },
  },
];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

describe.each(drivers)("recoverOrphanedClaims ($name)", ({ skip, open }) => {
  it.skipIf(skip)(
    "on a shared database keeps the tasks of a same-host run that still heartbeats, though its pid is not alive here",
    async () => {
      const store = await open();
      try {
        await twoRuns(store);
        const released = await recoverOrphanedClaims(store, {
          selfIds: [localWorkerId(HOST, 333)],
          hostname: HOST,
          exclusive: false,
          isAlive: notAlive,
          heartbeatIntervalMs: INTERVAL_MS,
        });
        expect(released).toEqual(["p/A"]);
        const tasks = await store.listTasks("p");
        expect(tasks.map((t) => [t.id, t.status, t.claimedBy])).toEqual([
          ["A", "PENDING", undefined],
          ["B", "CLAIMED", LIVE],
        ]);
      } finally {
        await store.close();
      }
    },
  );

  it.skipIf(skip)(
    "ends a gone same-host run's recorded attempts before it takes back that run's tasks, and only then",
    async () => {
      const store = await open();
      try {
        await twoRuns(store);
        // What the gone run held when its attempts were ended: its task must still be claimed by it.
        const heldAtEnd: (string | undefined)[] = [];
        const endAttemptsOfGoneRuns = async () => {
          heldAtEnd.push((await store.getTask("p", "A"))?.claimedBy);
        };
        const options = {
          selfIds: [localWorkerId(HOST, 333)],
          hostname: HOST,
          exclusive: false,
          heartbeatIntervalMs: INTERVAL_MS,
          endAttemptsOfGoneRuns,
        };
        // Every run alive: nothing to end.
        expect(await recoverOrphanedClaims(store, { ...options, isAlive: () => true })).toEqual([]);
        expect(heldAtEnd).toEqual([]);
        expect(await recoverOrphanedClaims(store, { ...options, isAlive: notAlive })).toEqual(["p/A"]);
        expect(heldAtEnd).toEqual([SILENT]);
      } finally {
        await store.close();
      }
    },
  );

  it.skipIf(skip)("with the embedded store's lock takes back every other run's tasks at once", async () => {
    const store = await open();
    try {
      await twoRuns(store);
      // This run's own second slot holds a task too: it is not taken back.
      const ownSlot = localWorkerId(HOST, 333, 2);
      await store.importPlan(
        parsePlanObject(
          { project: "q", tasks: [{ id: "C", status: "PENDING", priority: "medium", description: "C" }] },
          "test",
        ),
      );
      await store.upsertWorker({ workerId: ownSlot, hostname: HOST });
      await store.claim({ planId: "q", workerId: ownSlot, leaseMs: 600_000 });
      const released = await recoverOrphanedClaims(store, {
        selfIds: [localWorkerId(HOST, 333), ownSlot],
        hostname: HOST,
        exclusive: true,
        isAlive: () => true,
        heartbeatIntervalMs: INTERVAL_MS,
      });
      expect(released.sort()).toEqual(["p/A", "p/B"]);
    } finally {
      await store.close();
    }
  });

  it.skipIf(skip)(
    "with the embedded store's lock leaves a remote worker's task alone until its lease expires",
    async () => {
      const store = await open();
      try {
        const task = (id: string) => ({ id, status: "PENDING", priority: "medium", description: id });
        await store.importPlan(parsePlanObject({ project: "p", tasks: [task("A"), task("B")] }, "test"));
        // A whilly-worker of a `whilly server` that served this store, now stopped: the worker may
        // still be running its agent.
        await store.upsertWorker({ workerId: "w-remote", hostname: "elsewhere" });
        await store.claim({ planId: "p", workerId: "w-remote", leaseMs: 600_000 });
        await store.upsertWorker({ workerId: "w-lapsed", hostname: "elsewhere" });
        await store.claim({ planId: "p", workerId: "w-lapsed", leaseMs: 1 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        const released = await recoverOrphanedClaims(store, {
          selfIds: [localWorkerId(HOST, 333)],
          hostname: HOST,
          exclusive: true,
          isAlive: () => false,
          heartbeatIntervalMs: INTERVAL_MS,
        });
        expect(released).toEqual(["p/B"]);
        const tasks = await store.listTasks("p");
        expect(tasks.map((t) => [t.id, t.status, t.claimedBy])).toEqual([
          ["A", "CLAIMED", "w-remote"],
          ["B", "PENDING", undefined],
        ]);
      } finally {
        await store.close();
      }
    },
  );
});
