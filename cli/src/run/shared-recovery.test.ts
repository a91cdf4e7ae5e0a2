import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { openPostgresStore } from "@whilly/worker-api";
import { afterAll, describe, expect, it } from "vitest";
import {
  fakeAgentEnv,
  makeRepo,
  readAgentLog,
  removeAll,
  runCli,
  scratchDir,
  writePlanFile,
} from "../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { localWorkerId } from "./recover.js";

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  removeAll();
});

describe.skipIf(!postgresAvailable())("whilly run on a shared Postgres", () => {
  it("takes over the task of a same-host run that was still heartbeating at start once it falls silent", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const repo = makeRepo();
    const log = join(scratchDir("whilly-agent-"), "agent.log");
    writePlanFile(join(repo, "tasks.json"), "shared", [["T-A", "high"]]);
    const env = {
      ...fakeAgentEnv({ script: {}, log }),
      WHILLY_DATABASE_URL: database.url,
      // Silent means three missed beats: about 0.9 s, so the takeover happens within the test.
      WHILLY_HEARTBEAT_INTERVAL: "0.3",
    };
    expect((await runCli(["plan", "import", "tasks.json"], { cwd: repo, env })).code).toBe(0);

    // An earlier run on this host: its pid is gone, but it heartbeat a moment ago, so at start the
    // new run cannot tell it from a live run in another container with the same host name.
    const gonePid = spawnSync(process.execPath, ["-e", ""]).pid;
    const earlier = localWorkerId(hostname(), gonePid);
    const store = await openPostgresStore(database.url);
    try {
      await store.upsertWorker({ workerId: earlier, hostname: hostname() });
      await store.claim({ planId: "shared", workerId: earlier, leaseMs: 600_000 });
      await store.heartbeat(earlier, 600_000);
    } finally {
      await store.close();
    }

    const result = await runCli(["run", "tasks.json"], { cwd: repo, env });
    expect(result.err).toContain(`returned 1 task(s) left claimed by a run that is gone: shared/T-A`);
    expect(result.code).toBe(0);
    expect(readAgentLog(log).map((entry) => entry.task)).toEqual(["T-A"]);
  }, 30_000);
});
