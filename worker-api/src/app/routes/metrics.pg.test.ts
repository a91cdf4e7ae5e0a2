import { afterAll, beforeAll, describe } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../../test/support/db.js";
import { openPostgresFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { describeMetricsRoute } from "./metrics.contract.js";

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

  describeMetricsRoute("Postgres", () => fixture);
});
