import { afterAll, beforeAll, describe } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { describeTaskStoreContract } from "./store.contract.js";
import { openPostgresFixture, type StoreFixture } from "./testing/fixtures.js";

describe.skipIf(!postgresAvailable())("Postgres", () => {
  let database: TestDatabase;
  let fixture: StoreFixture;
  beforeAll(async () => {
    database = await createTestDatabase();
    fixture = await openPostgresFixture(database.url);
  });
  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });

  describeTaskStoreContract("Postgres", () => fixture.fresh());
});
