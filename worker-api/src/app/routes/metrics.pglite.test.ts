import { afterAll, beforeAll } from "vitest";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { describeMetricsRoute } from "./metrics.contract.js";

let fixture: StoreFixture;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => {
  await fixture?.close();
});

describeMetricsRoute("PGlite", () => fixture);
