import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { plan, task } from "./contract/helpers.contract.js";
import type { Store } from "./store.js";
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
 * Many claimers on real Postgres connections: two tasks sharing a key file are never in flight at
 * once, however the claims interleave (the plan's key-file lock, docs/claim.md).
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
});
