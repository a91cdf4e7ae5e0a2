import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GITHUB_ACTIONS_ISSUER } from "../../auth/oidc.js";
import { signOidcToken, startTestIssuer, type TestIssuer } from "../../auth/testing/oidc-issuer.js";
import { createTokenAuth } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { createApp } from "../app.js";
import { issuePlan, sendJson } from "../testing/plan-api.js";

// POST /api/v1/plans and the issue lookup with GitHub Actions OIDC tokens, signed by a test key whose
// JWKS a local HTTP server serves.

const BOOTSTRAP = "bootstrap-secret-for-oidc-tests";
const ADMIN = "admin-secret-for-oidc-tests-0123";
const AUDIENCE = "https://whilly.example.test";

let fixture: StoreFixture;
let store: Store;
let issuer: TestIssuer;
let other: TestIssuer;
beforeAll(async () => {
  [fixture, issuer, other] = await Promise.all([openPgliteFixture(), startTestIssuer(), startTestIssuer()]);
});
afterAll(async () => {
  await Promise.all([fixture.close(), issuer.close(), other.close()]);
});
beforeEach(async () => {
  store = await fixture.fresh();
});

function app() {
  return createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({
      bootstrapToken: BOOTSTRAP,
      adminToken: ADMIN,
      oidc: {
        jwksUrl: issuer.jwksUrl,
        issuer: GITHUB_ACTIONS_ISSUER,
        audience: AUDIENCE,
        repositories: ["acme/widgets", "acme/gadgets"],
        jwksTimeoutMs: 5000,
      },
    }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
}

const token = (repository: string, options: { audience?: string; expiresInSec?: number } = {}) =>
  signOidcToken(issuer.privateJwk, { audience: AUDIENCE, repository, ...options });

describe("a GitHub Actions OIDC token", () => {
  it("creates a plan of its own repository's issue, idempotently, and looks it up", async () => {
    const a = app();
    const bearer = await token("Acme/Widgets");
    const lookup = "/api/v1/plans?github_issue_ref=acme/widgets/42";
    expect(await sendJson(a, "GET", lookup, bearer)).toMatchObject({ status: 200, body: { plans: [] } });
    const created = await sendJson(a, "POST", "/api/v1/plans", bearer, issuePlan());
    expect(created).toMatchObject({ status: 201, body: { created: true, plan_id: "issue-acme-widgets-42" } });
    const again = await sendJson(a, "POST", "/api/v1/plans", bearer, issuePlan());
    expect(again).toMatchObject({ status: 200, body: { created: false, inserted: [] } });
    const found = await sendJson(a, "GET", lookup, bearer);
    expect(found.body.plans.map((p: { id: string }) => p.id)).toEqual(["issue-acme-widgets-42"]);
    // The lookup is all it reads: the rest of the read API stays closed to it.
    for (const path of ["/api/v1/plans", "/api/v1/plans/issue-acme-widgets-42/tasks"]) {
      expect((await sendJson(a, "GET", path, bearer)).status, path).toBe(401);
    }
    expect(issuer.fetches()).toBe(1);
  });

  it("reaches no issue of another repository: 403, nothing stored", async () => {
    const a = app();
    const widgets = await token("acme/widgets");
    const theirs = issuePlan("issue-acme-gadgets-1", "acme/gadgets/1");
    const refused = await sendJson(a, "POST", "/api/v1/plans", widgets, theirs);
    expect(refused).toMatchObject({ status: 403, body: { error_code: "issue_of_another_repository" } });
    const { github_issue_ref: _ref, origin: _origin, ...noIssue } = issuePlan();
    const withoutRef = await sendJson(a, "POST", "/api/v1/plans", widgets, noIssue);
    expect(withoutRef).toMatchObject({ status: 403, body: { error_code: "issue_of_another_repository" } });
    const lookup = await sendJson(a, "GET", "/api/v1/plans?github_issue_ref=acme/gadgets/1", widgets);
    expect(lookup).toMatchObject({ status: 403, body: { error_code: "issue_of_another_repository" } });
    expect(await store.listPlans()).toEqual([]);
  });

  it("refuses a repository the control plane does not list with 403", async () => {
    const a = app();
    const stranger = await token("evil/widgets");
    const plan = issuePlan("issue-evil-widgets-1", "evil/widgets/1");
    const refused = await sendJson(a, "POST", "/api/v1/plans", stranger, plan);
    expect(refused).toMatchObject({ status: 403, body: { error_code: "repository_not_allowed" } });
    expect(refused.body.detail).toContain("'evil/widgets'");
    const lookup = await sendJson(a, "GET", "/api/v1/plans?github_issue_ref=evil/widgets/1", stranger);
    expect(lookup).toMatchObject({ status: 403, body: { error_code: "repository_not_allowed" } });
  });

  it("refuses a wrong audience, an expired token and another key with 401 invalid_oidc_token", async () => {
    const a = app();
    const cases: [string, Promise<string>, string][] = [
      [
        "audience",
        token("acme/widgets", { audience: "someone-else" }),
        `its audience is not '${AUDIENCE}' (WHILLY_OIDC_AUDIENCE)`,
      ],
      ["expired", token("acme/widgets", { expiresInSec: -120 }), "it has expired"],
      [
        "other key",
        signOidcToken(other.privateJwk, { audience: AUDIENCE, repository: "acme/widgets" }),
        "its signature does not verify",
      ],
    ];
    for (const [name, bearer, reason] of cases) {
      const reply = await sendJson(a, "POST", "/api/v1/plans", await bearer, issuePlan());
      expect(reply.status, name).toBe(401);
      expect(reply.body).toMatchObject({
        error_code: "invalid_oidc_token",
        detail: `OIDC token refused: ${reason}`,
      });
      const lookup = await sendJson(a, "GET", "/api/v1/plans?github_issue_ref=acme/widgets/42", await bearer);
      expect(lookup.body.error_code, name).toBe("invalid_oidc_token");
    }
    expect(await store.listPlans()).toEqual([]);
  });

  it("never adds to a stored plan that was not made from its issue: 409, nothing changes", async () => {
    const a = app();
    const { github_issue_ref: _ref, origin: _origin, ...plain } = issuePlan();
    await sendJson(a, "POST", "/api/v1/plans", ADMIN, { ...plain, tasks: [plain.tasks[0]] });
    const bearer = await token("acme/widgets");
    const reply = await sendJson(a, "POST", "/api/v1/plans", bearer, issuePlan());
    expect(reply).toMatchObject({ status: 409, body: { error_code: "plan_conflict" } });
    expect((await store.listTasks("issue-acme-widgets-42")).map((t) => t.id)).toEqual(["A"]);
  });

  it("is an unknown token when OIDC is off", async () => {
    const off = createApp({
      withStore: (use) => use(store),
      auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN }),
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    const reply = await sendJson(off, "POST", "/api/v1/plans", await token("acme/widgets"), issuePlan());
    expect(reply).toMatchObject({ status: 401, body: { error_code: "missing_or_invalid_plan_token" } });
  });
});
