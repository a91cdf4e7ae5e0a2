import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storedReadToken } from "../../auth/testing/read-token.js";
import { createTokenAuth, type TokenAuthOptions } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";
import { issuePlan, sendJson } from "../testing/plan-api.js";

// POST /api/v1/plans with the admin token: the plan-file format, import's answers, and who is refused.

const BOOTSTRAP = "bootstrap-secret-for-plan-tests";
const ADMIN = "admin-secret-for-plan-tests-0123";

let fixture: StoreFixture;
let store: Store;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
});

function app(options: Partial<TokenAuthOptions> = {}) {
  return createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN, ...options }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
}

const send = (method: string, path: string, token: string | undefined, body?: unknown, a = app()) =>
  sendJson(a, method, path, token, body);

describe("POST /api/v1/plans with the admin token", () => {
  it("creates the plan (201), answers the same body again with 200 created:false and changes nothing", async () => {
    const first = await send("POST", "/api/v1/plans", ADMIN, issuePlan());
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      created: true,
      plan_id: "issue-acme-widgets-42",
      github_issue_ref: "acme/widgets/42",
      task_count: 2,
      inserted: ["A", "B"],
      unchanged: [],
      changed: [],
      demoted_to_pending: [],
      plan_changed: [],
      warnings: [],
    });
    const events = await store.listEvents("issue-acme-widgets-42");
    const again = await send("POST", "/api/v1/plans", ADMIN, issuePlan());
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      created: false,
      inserted: [],
      unchanged: ["A", "B"],
      plan_changed: [],
    });
    expect(await store.listEvents("issue-acme-widgets-42")).toEqual(events);

    const shown = await send("GET", "/api/v1/plans/issue-acme-widgets-42", ADMIN);
    expect(shown.body).toMatchObject({
      github_issue_ref: "acme/widgets/42",
      origin: { kind: "github_issue", reference: "acme/widgets/42", title: null },
      task_count: 2,
    });
    const tasks = await send("GET", "/api/v1/plans/issue-acme-widgets-42/tasks", ADMIN);
    expect(tasks.body.tasks.map((t: { id: string }) => t.id)).toEqual(["A", "B"]);
  });

  it("answers the issue's plan under another id with 409 plan_conflict naming the plan", async () => {
    await send("POST", "/api/v1/plans", ADMIN, issuePlan());
    const other = await send("POST", "/api/v1/plans", ADMIN, issuePlan("widgets-again"));
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error_code: "plan_conflict", plan_id: "issue-acme-widgets-42" });
    expect(other.body.detail).toContain("already belongs to plan 'issue-acme-widgets-42'");
    expect(await store.getPlan("widgets-again")).toBeUndefined();
  });

  it("answers a bad plan with 422 invalid_input naming the field, and stores nothing", async () => {
    const bad = issuePlan();
    bad.tasks[1] = { ...bad.tasks[1], priority: "urgent" } as (typeof bad.tasks)[number];
    const reply = await send("POST", "/api/v1/plans", ADMIN, { ...bad, github_issue_ref: "acme/widgets#4" });
    expect(reply.status).toBe(422);
    expect(reply.body.error_code).toBe("invalid_input");
    expect(reply.body.detail).toContain("'github_issue_ref' must name a GitHub issue as owner/repo/N");
    expect(reply.body.detail).toContain("task 'B' (tasks[1]): 'priority' must be one of");
    const cycle = issuePlan();
    cycle.tasks[0] = { ...cycle.tasks[0], dependencies: ["B"] } as (typeof cycle.tasks)[number];
    expect((await send("POST", "/api/v1/plans", ADMIN, cycle)).body.detail).toContain(
      "Cycle detected: A → B → A",
    );
    const syntax = await send("POST", "/api/v1/plans", ADMIN, '{"project": "x", "tasks": [}');
    expect(syntax).toMatchObject({ status: 422, body: { error_code: "invalid_input" } });
    expect(syntax.body.detail).toBe(
      "the plan in the request body: invalid JSON at line 1, column 28: expected a value, found '}'",
    );
    expect(await store.listPlans()).toEqual([]);
  });

  it("refuses a read-only token with 403, and a worker's bearer, the bootstrap token or none with 401", async () => {
    const read = await storedReadToken(store, "dashboard");
    const a = app({ publicRead: true });
    const registered = await send("POST", "/workers/register", BOOTSTRAP, { hostname: "box" }, a);
    const refusedRead = await send("POST", "/api/v1/plans", read.token, issuePlan(), a);
    expect(refusedRead).toMatchObject({ status: 403, body: { error_code: "read_only_token" } });
    for (const token of [registered.body.token, BOOTSTRAP, "wrong-token-0123456789", undefined]) {
      // A bad body changes nothing: the credential is judged first.
      const reply = await send("POST", "/api/v1/plans", token, "not json", a);
      expect(reply.status, String(token)).toBe(401);
      expect(reply.body.error_code).toBe("missing_or_invalid_plan_token");
    }
    expect(await store.listPlans()).toEqual([]);
  });

  it("looks a plan up by its issue for a reader, canonical and case-blind, [] when none", async () => {
    await send("POST", "/api/v1/plans", ADMIN, issuePlan());
    await send("POST", "/api/v1/plans", ADMIN, { ...issuePlan("other", "acme/widgets/7") });
    const found = await send("GET", "/api/v1/plans?github_issue_ref=Acme/Widgets/042", ADMIN);
    expect(found.status).toBe(200);
    expect(found.body.plans.map((p: { id: string }) => p.id)).toEqual(["issue-acme-widgets-42"]);
    expect(found.body.plans[0]).toMatchObject({ github_issue_ref: "acme/widgets/42", task_count: 2 });
    const none = await send("GET", "/api/v1/plans?github_issue_ref=acme/widgets/1", ADMIN);
    expect(none).toMatchObject({ status: 200, body: { plans: [] } });
    const bad = await send("GET", "/api/v1/plans?github_issue_ref=widgets", ADMIN);
    expect(bad).toMatchObject({ status: 422, body: { error_code: "invalid_input" } });
    const stranger = await send("GET", "/api/v1/plans?github_issue_ref=widgets", "nobody-0123456789");
    expect(stranger).toMatchObject({ status: 401, body: { error_code: "missing_or_invalid_read_token" } });
  });
});
