import { inject } from "vitest";
import { createDatabaseFrom, dropDatabase } from "../../worker-api/src/store/testing/databases.js";

/** A database of its own for one test file, copied from the migrated template. */
export type TestDatabase = {
  readonly name: string;
  /** Connection URL of this database. */
  readonly url: string;
  /** Drops it `WITH (FORCE)`; close pools first to keep their error logs quiet. */
  drop(): Promise<void>;
};

/** True when the global setup reached Postgres; use with `describe.skipIf(!postgresAvailable())`. */
export function postgresAvailable(): boolean {
  return inject("pgUrl") !== null;
}

/**
 * Creates a fresh database on the test Postgres (see `test/global-setup.ts`), migrated unless
 * `options.migrated` is false (an empty database, for testing migrations themselves).
 * @throws {Error} when Postgres is unavailable; guard the suite with {@link postgresAvailable}.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject("pgUrl");
  const template = inject("pgTemplate");
  if (adminUrl === null || template === null) throw new Error("Postgres is unavailable in this test run");
  const { name, url } = await createDatabaseFrom(adminUrl, options.migrated === false ? undefined : template);
  return { name, url, drop: () => dropDatabase(adminUrl, name) };
}
