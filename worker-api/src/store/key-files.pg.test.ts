import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { plan, task } from "./contract/helpers.contract.js";
import type { Store } from "./store.js";
import { KEY_FILE_LOCK_SPACE, keyFileLockKey } from "./tasks/key-file-locks.js";
import { openPostgresFixture, type StoreFixture } from "./testing/fixtures.js";

const CLAIMERS = 24;
const TASKS = 120;
const FILES = 10;

/** Task `i`'s key files: two of `FILES`, so each task overlaps a fifth of the others. */
function keyFilesOf(i: number): string[] {
  return [`src/f${i % FILES}.ts`, `src/f${(i * 3 + 1) % FILES}.ts`];
}

/**
 * What this process holds: a task is added once its claim returns and removed before its complete is
 * sent, so it is always a subset of what the database holds in flight; an overlap here is one there.
 */
class Holdings {
  readonly overlaps: string[] = [];
  most = 0;
  done = 0;
  private readonly holding = new Map<string, string>();
  constructor(private readonly filesOf: ReadonlyMap<string, string[]>) {}

  take(taskId: string): void {
    for (const file of this.filesOf.get(taskId) ?? []) {
      const other = this.holding.get(file);
      if (other !== undefined) this.overlaps.push(`${taskId} and ${other} share ${file}`);
      this.holding.set(file, taskId);
    }
    this.most = Math.max(this.most, new Set(this.holding.values()).size);
  }

  drop(taskId: string): void {
    for (const file of this.filesOf.get(taskId) ?? []) this.holding.delete(file);
  }
}

/** Claims and completes until every task is done. */
async function claimer(store: Store, workerId: string, run: Holdings): Promise<void> {
  await store.upsertWorker({ workerId, hostname: "h" });
  while (run.done < TASKS) {
    const claimed = await store.claim({ planId: "p", workerId, leaseMs: 60_000, start: true });
    if (!claimed) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    run.take(claimed.id);
    // Let other claimers run while this task is held.
    await store.getTask("p", claimed.id);
    run.drop(claimed.id);
    const fence = { planId: "p", taskId: claimed.id, workerId, version: claimed.version };
    await store.complete({ ...fence, costMicroUsd: 0 });
    run.done++;
  }
}

/**
 * Whether some connection holds (`granted`) or waits for the key-file lock of `file` in plan `planId`,
 * as `client` sees `pg_locks`.
 */
async function keyFileLock(
  client: pg.Client,
  planId: string,
  file: string,
  granted = true,
): Promise<boolean> {
  const result = await client.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted = $3 AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = $1 AND objid = $2`,
    [KEY_FILE_LOCK_SPACE, keyFileLockKey(planId, file) >>> 0, granted],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Polls `check` until it holds (the test's timeout bounds the wait). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Many claimers on real Postgres connections: two tasks sharing a key file are never in flight at
 * once, however the claims interleave (the claim's per-file locks, docs/claim.md).
 */
describe.skipIf(!postgresAvailable())("Postgres key-file locks", () => {
  let database: TestDatabase;
  let fixture: StoreFixture;
  beforeAll(async () => {
    database = await createTestDatabase();
    fixture = await openPostgresFixture(database.url, { max: CLAIMERS });
  });
  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });

  it(`${CLAIMERS} concurrent claimers never hold two tasks with a common key file`, async () => {
    const store = await fixture.fresh();
    const ids = Array.from({ length: TASKS }, (_, i) => `T${String(i).padStart(3, "0")}`);
    const filesOf = new Map(ids.map((id, i) => [id, keyFilesOf(i)]));
    await store.importPlan(
      plan(
        "p",
        ids.map((id) => task(id, { keyFiles: filesOf.get(id) ?? [] })),
      ),
    );
    const run = new Holdings(filesOf);
    await Promise.all(Array.from({ length: CLAIMERS }, (_, n) => claimer(store, `w${n}`, run)));
    const { overlaps, most, done } = run;
    expect(overlaps).toEqual([]);
    expect(done).toBe(TASKS);
    // Tasks without a common file did run side by side.
    expect(most).toBeGreaterThan(1);
  });

  it("a claim holding its key files' locks does not hold up the claim of a task with other files", async () => {
    const store = await fixture.fresh();
    await store.importPlan(
      plan("p", [task("A", { keyFiles: ["src/a.ts"] }), task("B", { keyFiles: ["src/b.ts", "src/c.ts"] })]),
    );
    await store.upsertWorker({ workerId: "w1", hostname: "h" });
    await store.upsertWorker({ workerId: "w2", hostname: "h" });
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      // w1 claimed before, so its claim does not write its row (docs/claim.md, `seen`).
      await blocker.query("UPDATE workers SET agents = '{claude}', tags = '{}' WHERE worker_id = 'w1'");
      // Locking w1's row stops w1's claim at its foreign-key check, after it took its file's lock.
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM workers WHERE worker_id = 'w1' FOR UPDATE");
      const first = store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      await until(() => keyFileLock(blocker, "p", "src/a.ts"));

      const second = await store.claim({ planId: "p", workerId: "w2", leaseMs: 60_000 });
      expect(second?.id).toBe("B");
      // The first claim still holds src/a.ts: both held their locks at once.
      expect(await keyFileLock(blocker, "p", "src/a.ts")).toBe(true);

      await blocker.query("COMMIT");
      expect((await first)?.id).toBe("A");
      expect(await keyFileLock(blocker, "p", "src/a.ts")).toBe(false);
    } finally {
      await blocker.end();
    }
  });

  it("a claim whose task was taken while it waited for the file's lock claims the next one", async () => {
    const store = await fixture.fresh();
    await store.importPlan(
      plan("p", [task("A", { keyFiles: ["src/a.ts"] }), task("B", { keyFiles: ["src/b.ts"] })]),
    );
    await store.upsertWorker({ workerId: "w1", hostname: "h" });
    await store.upsertWorker({ workerId: "w2", hostname: "h" });
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      // Another claimer of A, holding src/a.ts's lock between its lock and its commit.
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock($1, $2)", [
        KEY_FILE_LOCK_SPACE,
        keyFileLockKey("p", "src/a.ts"),
      ]);
      const claim = store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      await until(() => keyFileLock(other, "p", "src/a.ts", false));
      await other.query(
        `UPDATE tasks SET status = 'CLAIMED', claimed_by = 'w2', claimed_at = now(),
           lease_expires_at = now() + interval '1 hour', version = version + 1
         WHERE plan_id = 'p' AND id = 'A'`,
      );
      await other.query("COMMIT");
      // Under src/a.ts's lock it finds A taken and B outside its locks: it locks src/b.ts and claims B.
      expect((await claim)?.id).toBe("B");
    } finally {
      await other.end();
    }
  });
});
