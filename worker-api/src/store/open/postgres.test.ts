import { createServer } from "node:net";
import { ConfigurationError, StoreUnavailable } from "@whilly/core";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../../test/support/db.js";
import { shippedCount } from "../migrate.js";
import { databaseUrl } from "../testing/databases.js";
import { migratePostgres, openPostgresStore } from "./postgres.js";

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 1;
}

describe("openPostgresStore without a server", () => {
  it("reports an unreachable server as StoreUnavailable, retryable, without the URL's password", async () => {
    const port = await closedPort();
    const error = await openPostgresStore(`postgres://whilly:s3cret@127.0.0.1:${port}/whilly`).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain("s3cret");
  });
});

describe.skipIf(!postgresAvailable())("Postgres migrations", () => {
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.drop();
  });

  it("refuses to open an unmigrated database with a hint to migrate, then opens it after migratePostgres", async () => {
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    const error = await openPostgresStore(database.url).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/0 of whilly's \d+ migrations/);
    expect(error.hint).toContain("whilly db migrate");

    const results = await Promise.all([migratePostgres(database.url), migratePostgres(database.url)]);
    // Two at once: the advisory lock lets one apply everything and the other find nothing to do.
    expect(results.map((r) => r.applied).sort()).toEqual([0, shippedCount()]);
    expect(await migratePostgres(database.url)).toEqual({ applied: 0 });

    const store = await openPostgresStore(database.url, { max: 2 });
    try {
      expect((await store.createPlan({ id: "p", name: "after migrate" })).created).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("reports a missing database as a configuration error", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const missing = databaseUrl(database.url, "whilly_no_such_database");
    await expect(openPostgresStore(missing)).rejects.toBeInstanceOf(ConfigurationError);
    await expect(migratePostgres(missing)).rejects.toMatchObject({ code: "configuration" });
  });
});
