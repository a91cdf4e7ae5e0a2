import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { plan, task } from "./contract/helpers.contract.js";
import type { Store } from "./store.js";
import { openPostgresFixture, type StoreFixture } from "./testing/fixtures.js";

const CLAIMERS = 100;
const TASKS = 400;
const COST = 1_000;
const POOL = 40;

/** Deadlocks Postgres detected in `url`'s database so far (its backends report them on exit). */
async function deadlocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      "SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return result.rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Half the tasks name a key file of their own, so both claim paths run: the one statement for tasks
 * without key files, and the transaction under the plan's key-file lock (docs/claim.md).
 */
function keyFilesOf(id: string, i: number): string[] {
  return i % 2 === 0 ? [] : [`src/${id}.ts`];
}

/** Every claimer claims with start and completes with `COST` until nothing is ready; @returns errors. */
async function runClaimers(store: Store, planId: string): Promise<string[]> {
  const errors: string[] = [];
  await Promise.all(
    Array.from({ length: CLAIMERS }, async (_, n) => {
      const workerId = `w${n}`;
      await store.upsertWorker({ workerId, hostname: "h" });
      while (errors.length < 20) {
        try {
          const claimed = await store.claim({ planId, workerId, leaseMs: 60_000, start: true });
          if (!claimed) return;
          const fence = { planId, taskId: claimed.id, workerId, version: claimed.version };
          await store.complete({ ...fence, costMicroUsd: COST });
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
    }),
  );
  return errors;
}

/**
 * Many claimers and cost-reporting completes on one plan, on real Postgres: every statement that
 * touches a plan's spend and its tasks takes its locks in one order (docs/claim.md), so Postgres detects
 * no deadlock at all (the store's one retry would otherwise hide them from the callers).
 */
describe.skipIf(!postgresAvailable())("Postgres lock order", () => {
  let database: TestDatabase;
  let fixture: StoreFixture | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });

  it(`${CLAIMERS} claimers with cost-reporting completes: all done, 0 deadlocks, 0 errors`, async () => {
    const before = await deadlocks(database.url);
    // 100 claimers share a pool as the control plane's requests do; the machine's Postgres is shared.
    fixture = await openPostgresFixture(database.url, { max: POOL });
    const store = await fixture.fresh();
    const ids = Array.from({ length: TASKS }, (_, i) => `T${String(i).padStart(4, "0")}`);
    await store.importPlan(
      plan(
        "p",
        ids.map((id, i) => task(id, { keyFiles: keyFilesOf(id, i) })),
      ),
    );
    await store.createPlan({ id: "b", name: "budgeted", budgetMicroUsd: 1_000_000_000 });
    await store.importPlan(
      plan(
        "b",
        ids.map((id, i) => task(id, { keyFiles: keyFilesOf(id, i) })),
      ),
    );

    const errors = [...(await runClaimers(store, "p")), ...(await runClaimers(store, "b"))];
    const spent = [(await store.getPlan("p"))?.spentMicroUsd, (await store.getPlan("b"))?.spentMicroUsd];
    await fixture.close();
    fixture = undefined;

    expect(errors).toEqual([]);
    expect(spent).toEqual([TASKS * COST, TASKS * COST]);
    expect((await deadlocks(database.url)) - before).toBe(0);
  });
});
