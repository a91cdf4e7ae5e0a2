import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTokenAuth } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";
import { issuePlan, sendJson } from "../testing/plan-api.js";

// POST /api/v1/plans?budget_usd=&create_only=: what forge intake --connect sends.

const ADMIN = "admin-secret-for-plan-options-0123";

let fixture: StoreFixture;
let store: Store;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
});

const app = () =>
  createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: "bootstrap-secret-for-options", adminToken: ADMIN }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
const post = (query: string, body: unknown) => sendJson(app(), "POST", `/api/v1/plans${query}`, ADMIN, body);

describe("POST /api/v1/plans options", () => {
  it("budget_usd sets the budget of a plan it creates; create_only adds nothing to a stored plan", async () => {
    const first = await post("?budget_usd=12.50&create_only=true", issuePlan());
    expect(first).toMatchObject({ status: 201, body: { created: true } });
    expect((await store.getPlan("issue-acme-widgets-42"))?.budgetMicroUsd).toBe(12_500_000);

    const other = issuePlan();
    other.tasks.push({
      id: "C",
      status: "pending",
      priority: "low",
      description: "third",
      test_steps: ["true"],
    });
    const again = await post("?budget_usd=1&create_only=true", other);
    expect(again).toMatchObject({ status: 200, body: { created: false, inserted: [], unchanged: [] } });
    expect((await store.listTasks("issue-acme-widgets-42")).map((t) => t.id)).toEqual(["A", "B"]);
    expect((await store.getPlan("issue-acme-widgets-42"))?.budgetMicroUsd).toBe(12_500_000);
  });

  it("refuses a bad budget_usd or create_only with 422 naming it, storing nothing", async () => {
    for (const [query, field] of [
      ["?budget_usd=-1", "budget_usd"],
      ["?budget_usd=lots", "budget_usd"],
      ["?create_only=yes", "create_only"],
    ] as const) {
      const reply = await post(query, issuePlan());
      expect(reply.status).toBe(422);
      expect(JSON.stringify(reply.body)).toContain(field);
    }
    expect(await store.listPlans()).toEqual([]);
  });
});
