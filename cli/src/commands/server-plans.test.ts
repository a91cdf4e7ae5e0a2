import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  spawnBin,
  waitFor,
} from "../../../test/support/cli.js";
import { issuePlan } from "../../../worker-api/src/app/testing/plan-api.js";
import {
  signOidcToken,
  startTestIssuer,
  type TestIssuer,
} from "../../../worker-api/src/auth/testing/oidc-issuer.js";

// `whilly server` as a real process: POST /api/v1/plans with the admin token and with GitHub Actions
// OIDC tokens whose JWKS a local server serves, configured by WHILLY_OIDC_* variables.

const ADMIN = "admin-s3cret-for-server-plans";
const AUDIENCE = "whilly-server-test";

let template: string;
let issuer: TestIssuer;
beforeAll(async () => {
  [template, issuer] = await Promise.all([makeStoreTemplate(), startTestIssuer()]);
});
afterAll(async () => {
  await issuer?.close();
  removeAll();
});

describe("whilly server's plan creation", () => {
  it("takes the admin token and an allowed repository's OIDC token, and refuses another repository", async () => {
    const env = baseEnv({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "bootstrap-s3cret-for-plans",
      WHILLY_ADMIN_TOKEN: ADMIN,
      WHILLY_OIDC_JWKS_URL: issuer.jwksUrl,
      WHILLY_OIDC_AUDIENCE: AUDIENCE,
      WHILLY_OIDC_REPOSITORIES: "acme/widgets, acme/gadgets",
      WHILLY_OIDC_JWKS_TIMEOUT: "2",
    });
    const proc = spawnBin(["server", "--port", "0"], { cwd: makeRepo(template), env });
    try {
      const url = await waitFor("the server's URL", () => /^(http:\/\/\S+)\n/m.exec(proc.out())?.[1], 30_000);
      const send = async (method: string, path: string, bearer: string, body?: unknown) => {
        const reply = await fetch(`${url}${path}`, {
          method,
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
      };
      const byAdmin = await send(
        "POST",
        "/api/v1/plans",
        ADMIN,
        issuePlan("issue-acme-gadgets-3", "acme/gadgets/3"),
      );
      expect(byAdmin).toMatchObject({ status: 201, body: { created: true, task_count: 2 } });

      const widgets = await signOidcToken(issuer.privateJwk, {
        audience: AUDIENCE,
        repository: "acme/widgets",
      });
      expect(await send("POST", "/api/v1/plans", widgets, issuePlan())).toMatchObject({ status: 201 });
      expect(await send("POST", "/api/v1/plans", widgets, issuePlan())).toMatchObject({
        status: 200,
        body: { created: false },
      });
      const lookup = await send("GET", "/api/v1/plans?github_issue_ref=acme/widgets/42", widgets);
      expect(lookup.body.plans).toEqual([expect.objectContaining({ id: "issue-acme-widgets-42" })]);

      const stranger = await signOidcToken(issuer.privateJwk, {
        audience: AUDIENCE,
        repository: "evil/widgets",
      });
      const refused = await send(
        "POST",
        "/api/v1/plans",
        stranger,
        issuePlan("issue-evil-widgets-1", "evil/widgets/1"),
      );
      expect(refused).toMatchObject({ status: 403, body: { error_code: "repository_not_allowed" } });
      const listed = await send("GET", "/api/v1/plans", ADMIN);
      expect((listed.body.plans as { id: string }[]).map((p) => p.id)).toEqual([
        "issue-acme-gadgets-3",
        "issue-acme-widgets-42",
      ]);
    } finally {
      proc.child.kill("SIGTERM");
    }
    const done = await proc.done;
    expect(done.code).toBe(0);
    expect(done.err).toContain('"event":"plan.imported"');
    expect(done.err).not.toContain(ADMIN);
  });
});
