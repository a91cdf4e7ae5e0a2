import { USD_CASES } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { plan, task } from "../../store/contract/helpers.contract.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  await store.importPlan(plan("p", [task("A"), task("B")]));
});

const { post } = routeHarness(() => store);

describe("cost_usd over HTTP", () => {
  it.each(USD_CASES)(
    "cost_usd $input: accepted as $micro µUSD, or 422 naming the field",
    async ({ input, micro }) => {
      const claimed = await post("/tasks/claim", { worker_id: "w1", plan_id: "p" });
      const fence = { worker_id: "w1", plan_id: "p", version: claimed.body.task.version };
      // NaN and Infinity have no JSON form: send the text a careless client would.
      const raw =
        typeof input === "number" && !Number.isFinite(input) ? String(input) : JSON.stringify(input);
      const body = `{"worker_id":"w1","plan_id":"p","version":${fence.version},"cost_usd":${raw}}`;
      const reply = await post("/tasks/A/complete", body);
      if (micro === undefined) {
        expect(reply.status).toBe(422);
        if (Number.isFinite(input) || typeof input === "string") {
          expect(JSON.stringify(reply.body)).toContain("cost_usd");
        }
        expect((await store.getTask("p", "A"))?.status).toBe("CLAIMED");
      } else {
        expect(reply.status).toBe(200);
        expect((await store.getPlan("p"))?.spentMicroUsd).toBe(micro);
      }
    },
  );
});

describe("a report after the lease was lost", () => {
  it("answers 409 and counts the cost on the plan once, however often it is retried", async () => {
    const claimed = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true });
    const version = claimed.body.task.version;
    // The lease sweep runs at its own pace; here it has found the lease over.
    await store.releaseExpiredLeases();
    await post("/tasks/A/release", { worker_id: "w1", plan_id: "p", version, reason: "lease test" });
    const report = { worker_id: "w1", plan_id: "p", version, cost_usd: "0.025", idempotency_key: "att-1" };
    for (let i = 0; i < 3; i++) expect((await post("/tasks/A/complete", report)).status).toBe(409);
    const v1 = { worker_id: "w1", plan_id: "p", version, cost_usd: "0.5" };
    for (let i = 0; i < 2; i++)
      expect((await post("/tasks/A/fail", { ...v1, reason: "x" })).status).toBe(409);
    expect((await store.getPlan("p"))?.spentMicroUsd).toBe(25_000 + 500_000);
  });
});
