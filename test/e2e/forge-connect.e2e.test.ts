import { type FakeAnthropic, type FakeScript, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  signOidcToken,
  startTestIssuer,
  type TestIssuer,
} from "../../worker-api/src/auth/testing/oidc-issuer.js";
import { makeRepo, makeStoreTemplate, removeAll, runBin } from "../support/cli.js";
import { forgeEnv, github, issue, PLAN_ID, REF } from "./forge-support.js";
import { MODEL_PRD, VALID_PLAN } from "./init-support.js";
import { ADMIN, AUDIENCE, adminGet, type RunningServer, startServer } from "./server-support.js";

// `whilly forge intake --connect URL`: the plan goes to a real `whilly server` (POST /api/v1/plans),
// which is asked first whether the issue has a plan (GET /api/v1/plans?github_issue_ref=).

const SCRIPT: FakeScript = {
  generate: {
    prd: { turns: [{ text: MODEL_PRD }] },
    plan: { turns: [{ text: JSON.stringify(VALID_PLAN) }] },
  },
};

let fake: FakeAnthropic;
let issuer: TestIssuer;
let server: RunningServer;
beforeAll(async () => {
  const template = await makeStoreTemplate();
  [fake, issuer] = await Promise.all([startFakeAnthropic({ script: SCRIPT }), startTestIssuer()]);
  server = await startServer(template, issuer.jwksUrl, "acme/widgets");
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([fake?.close(), issuer?.close()]);
  removeAll();
});

describe("whilly forge intake --connect", () => {
  it("with the admin token: asks the server first, posts the plan, flips and comments once; a rerun does nothing", async () => {
    const { env, gh } = forgeEnv(fake, github());
    const connect = ["--connect", server.url, "--json", "--budget", "4"];
    const result = await runBin(["forge", "intake", REF, ...connect], {
      cwd: makeRepo(),
      env: { ...env, WHILLY_ADMIN_TOKEN: ADMIN },
    });
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ plan_id: PLAN_ID, created: true, tasks_count: 3 });
    expect(result.err).toContain(`checking the control plane at ${server.url} for a plan of ${REF}`);
    expect(await adminGet(server.url, `/api/v1/plans/${PLAN_ID}`)).toMatchObject({
      id: PLAN_ID,
      github_issue_ref: REF,
      task_count: 3,
      budget_usd: "4.000000",
      origin: { kind: "github_issue", reference: REF },
    });
    expect(gh.callsOf("issue", "edit")).toHaveLength(1);
    expect(gh.callsOf("issue", "comment")).toHaveLength(1);

    const before = { gh: gh.calls().length, model: fake.requests().length };
    const again = await runBin(["forge", "intake", REF, ...connect], {
      cwd: makeRepo(),
      env: { ...env, WHILLY_ADMIN_TOKEN: ADMIN },
    });
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ created: false, outcome: "exists", tasks_count: 3 });
    expect({ gh: gh.calls().length, model: fake.requests().length }).toEqual(before);
  }, 120_000);

  it("with an OIDC token of the repository; a token of another repository is refused before gh or the model", async () => {
    const { env, gh } = forgeEnv(fake, github({}, {}));
    const state = gh.state();
    state.repos = {
      ...state.repos,
      "acme/widgets": { ...state.repos?.["acme/widgets"], issues: [issue({ number: 8 })] },
    };
    gh.setState(state);
    const token = await signOidcToken(issuer.privateJwk, { audience: AUDIENCE, repository: "acme/widgets" });
    const ok = await runBin(["forge", "intake", "acme/widgets/8", "--connect", server.url], {
      cwd: makeRepo(),
      env: { ...env, WHILLY_OIDC_TOKEN: token },
    });
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^✓ Plan 'issue-acme-widgets-8' created from acme\/widgets\/8 \(3 tasks\)/);

    const before = { gh: gh.calls().length, model: fake.requests().length };
    const stranger = await signOidcToken(issuer.privateJwk, {
      audience: AUDIENCE,
      repository: "evil/widgets",
    });
    const refused = await runBin(["forge", "intake", "acme/widgets/8", "--connect", server.url], {
      cwd: makeRepo(),
      env: { ...env, WHILLY_OIDC_TOKEN: stranger },
    });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/answered 403 repository_not_allowed/);
    expect({ gh: gh.calls().length, model: fake.requests().length }).toEqual(before);
  }, 120_000);
});
