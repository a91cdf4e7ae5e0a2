import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { plan, task } from "./contract/helpers.contract.js";
import { openPostgresFixture, type StoreFixture } from "./testing/fixtures.js";

const CLAIMERS = 24;
const TASKS = 120;
const FILES = 10;

/** Task `i`'s key files: two of `FILES`, so each task overlaps a fifth of the others. */
function keyFilesOf(i: number): string[] {
  return [`src/f${i % FILES}.ts`, `src/f${(i * 3 + 1) % FILES}.ts`];
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
    // What this process holds: added once a claim returns, removed before its complete is sent, so it
    // is always a subset of what the database holds in flight; an overlap here is one there.
    const holding = new Map<string, string>();
    const overlaps: string[] = [];
    let most = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: CLAIMERS }, async (_, n) => {
        const workerId = `w${n}`;
        await store.upsertWorker({ workerId, hostname: "h" });
        for (;;) {
          const claimed = await store.claim({ planId: "p", workerId, leaseMs: 60_000, start: true });
          if (!claimed) {
            if (done === TASKS) return;
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          for (const file of filesOf.get(claimed.id) ?? []) {
            const other = holding.get(file);
            if (other !== undefined) overlaps.push(`${claimed.id} and ${other} share ${file}`);
            holding.set(file, claimed.id);
          }
          most = Math.max(most, new Set(holding.values()).size);
          // Let other claimers run while this task is held.
          await store.getTask("p", claimed.id);
          for (const file of filesOf.get(claimed.id) ?? []) holding.delete(file);
          await store.complete({
            planId: "p",
            taskId: claimed.id,
            workerId,
            version: claimed.version,
            costMicroUsd: 0,
          });
          done++;
        }
      }),
    );
    expect(overlaps).toEqual([]);
    expect(done).toBe(TASKS);
    // Tasks without a common file did run side by side.
    expect(most).toBeGreaterThan(1);
  });
});
