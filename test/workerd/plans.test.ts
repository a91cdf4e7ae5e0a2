import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { signOidcToken } from "../../worker-api/src/auth/testing/oidc-token.js";
import { call, register, withStore } from "./support.js";

// POST /api/v1/plans and the issue lookup on the Worker: the admin token, and GitHub Actions OIDC
// tokens verified against the JWKS the global setup serves (the Worker fetches it from workerd).

/** A plan of issue acme/widgets/N under a fresh plan id (every test file shares one database). */
function issuePlan(n: number, repo = "acme/widgets") {
  return {
    project: "Widgets",
    plan_id: `issue-${repo.replace("/", "-")}-${n}`,
    github_issue_ref: `${repo}/${n}`,
    origin: { kind: "github_issue", reference: `${repo}/${n}`, title: "Add a widget" },
    tasks: [
      { id: "A", status: "pending", priority: "high", description: "first" },
      { id: "B", status: "pending", priority: "high", description: "second", dependencies: ["A"] },
    ],
  };
}

const oidc = (repository: string, options: { expiresInSec?: number; audience?: string } = {}) =>
  signOidcToken(inject("oidcPrivateJwk"), { audience: env.WHILLY_OIDC_AUDIENCE, repository, ...options });

describe.skipIf(!inject("workerdDatabaseUrl"))("plan creation on the Worker", () => {
  it("stores a plan for the admin token, 201 then 200, and refuses a worker's bearer", async () => {
    const n = Math.floor(Math.random() * 1e9);
    const first = await call("POST", "/api/v1/plans", issuePlan(n), env.WHILLY_ADMIN_TOKEN);
    expect(first).toMatchObject({ status: 201, body: { created: true, inserted: ["A", "B"] } });
    const again = await call("POST", "/api/v1/plans", issuePlan(n), env.WHILLY_ADMIN_TOKEN);
    expect(again).toMatchObject({ status: 200, body: { created: false, unchanged: ["A", "B"] } });
    const events = await withStore((store) => store.listEvents(`issue-acme-widgets-${n}`));
    expect(events.map((e) => e.eventType)).toEqual(["plan.created", "task.created", "task.created"]);
    const { token } = await register();
    const refused = await call("POST", "/api/v1/plans", issuePlan(n + 1), token);
    expect(refused).toMatchObject({ status: 401, body: { error_code: "missing_or_invalid_plan_token" } });
    const bad = await call(
      "POST",
      "/api/v1/plans",
      { ...issuePlan(n + 2), tasks: "none" },
      env.WHILLY_ADMIN_TOKEN,
    );
    expect(bad).toMatchObject({ status: 422, body: { error_code: "invalid_input" } });
    expect(bad.body.detail).toContain("'tasks' must be a JSON array");
  });

  it("takes an OIDC token of an allowed repository for its own issues only", async () => {
    const n = Math.floor(Math.random() * 1e9);
    const bearer = await oidc("acme/widgets");
    const lookup = `/api/v1/plans?github_issue_ref=acme/widgets/${n}`;
    expect(await call("GET", lookup, undefined, bearer)).toMatchObject({ status: 200, body: { plans: [] } });
    const created = await call("POST", "/api/v1/plans", issuePlan(n), bearer);
    expect(created).toMatchObject({
      status: 201,
      body: { created: true, github_issue_ref: `acme/widgets/${n}` },
    });
    const found = await call("GET", lookup, undefined, bearer);
    expect(found.body.plans).toEqual([expect.objectContaining({ id: `issue-acme-widgets-${n}` })]);

    const theirs = await call("POST", "/api/v1/plans", issuePlan(n, "acme/gadgets"), bearer);
    expect(theirs).toMatchObject({ status: 403, body: { error_code: "issue_of_another_repository" } });
    const stranger = await call(
      "POST",
      "/api/v1/plans",
      issuePlan(n, "evil/widgets"),
      await oidc("evil/widgets"),
    );
    expect(stranger).toMatchObject({ status: 403, body: { error_code: "repository_not_allowed" } });
    const expired = await call(
      "POST",
      "/api/v1/plans",
      issuePlan(n + 1),
      await oidc("acme/widgets", { expiresInSec: -60 }),
    );
    expect(expired).toMatchObject({
      status: 401,
      body: { error_code: "invalid_oidc_token", detail: "OIDC token refused: it has expired" },
    });
    const audience = await call(
      "POST",
      "/api/v1/plans",
      issuePlan(n + 1),
      await oidc("acme/widgets", { audience: "x" }),
    );
    expect(audience).toMatchObject({ status: 401, body: { error_code: "invalid_oidc_token" } });
  });

  it("sets the budget of a plan it creates (budget_usd) and adds nothing to a stored one (create_only)", async () => {
    const n = Math.floor(Math.random() * 1e9);
    const path = "/api/v1/plans?create_only=true&budget_usd=7.5";
    const first = await call("POST", path, issuePlan(n), env.WHILLY_ADMIN_TOKEN);
    expect(first).toMatchObject({ status: 201, body: { created: true } });
    const more = issuePlan(n);
    more.tasks.push({ id: "C", status: "pending", priority: "low", description: "third" });
    const again = await call("POST", path, more, env.WHILLY_ADMIN_TOKEN);
    expect(again).toMatchObject({ status: 200, body: { created: false, inserted: [] } });
    const plan = await withStore((store) => store.getPlan(`issue-acme-widgets-${n}`));
    expect(plan?.budgetMicroUsd).toBe(7_500_000);
    const tasks = await withStore((store) => store.listTasks(`issue-acme-widgets-${n}`));
    expect(tasks.map((t) => t.id)).toEqual(["A", "B"]);
  });
});
