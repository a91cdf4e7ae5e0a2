import { afterAll, beforeAll } from "vitest";
import { describeTaskStoreContract } from "./store.contract.js";
import { openPgliteFixture, type StoreFixture } from "./testing/fixtures.js";

let fixture: StoreFixture;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => {
  await fixture?.close();
});

describeTaskStoreContract("PGlite", () => fixture.fresh());
