import { type FakeAnthropic, type FakeScript, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  signOidcToken,
  startTestIssuer,
  type TestIssuer,
} from "../../worker-api/src/auth/testing/oidc-issuer.js";
import { makeStoreTemplate, removeAll } from "../support/cli.js";
import { labeledEvent, runAction, startTokenEndpoint, type TokenEndpoint } from "./action-support.js";
import { forgeEnv, github, issue } from "./forge-support.js";
import { MODEL_PRD, VALID_PLAN } from "./init-support.js";
import { ADMIN, AUDIENCE, adminGet, type RunningServer, startServer } from "./server-support.js";

// The GitHub Action's entry point run as GitHub runs it (event payload file, INPUT_* variables,
// GITHUB_OUTPUT) against a real `whilly server`, with the admin token and with an OIDC token signed by
// a test key served as JWKS; the model is the scripted fake behind the real Claude Code CLI, gh the fake.

const SCRIPT: FakeScript = {
  generate: {
    prd: { turns: [{ text: MODEL_PRD }] },
    plan: { turns: [{ text: JSON.stringify(VALID_PLAN) }] },
  },
};

let fake: FakeAnthropic;
let issuer: TestIssuer;
let server: RunningServer;
let endpoint: TokenEndpoint;
let repository = "acme/widgets";
beforeAll(async () => {
  const template = await makeStoreTemplate();
  [fake, issuer] = await Promise.all([startFakeAnthropic({ script: SCRIPT }), startTestIssuer()]);
  server = await startServer(template, issuer.jwksUrl, "acme/widgets");
  endpoint = await startTokenEndpoint(() =>
    signOidcToken(issuer.privateJwk, { audience: AUDIENCE, repository }),
  );
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([fake?.close(), issuer?.close(), endpoint?.close()]);
  removeAll();
});

/** A GitHub holding issues 7, 8 and 9 of acme/widgets, all labelled whilly-pending. */
function issues() {
  const state = github();
  const repo = state.repos?.["acme/widgets"];
  if (repo) repo.issues = [7, 8, 9].map((number) => issue({ number }));
  return forgeEnv(fake, state);
}

const common = { "anthropic-api-key": "sk-ant-fake", "github-token": "ghs_action-token-0123456789" };

describe("the whilly GitHub Action", () => {
  it("issues: labeled with the admin token: the plan on the server, outputs set; another label is skipped", async () => {
    const { env, gh } = issues();
    const inputs = { ...common, "control-url": server.url, "admin-token": ADMIN, "budget-usd": "5" };
    const run = await runAction({ env, event: labeledEvent(7, "whilly-pending"), inputs });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toEqual({ "plan-id": "issue-acme-widgets-7", created: "true", "tasks-count": "3" });
    expect(run.log).toContain(`::add-mask::${ADMIN}`);
    expect(await adminGet(server.url, "/api/v1/plans/issue-acme-widgets-7")).toMatchObject({
      github_issue_ref: "acme/widgets/7",
      budget_usd: "5.000000",
      task_count: 3,
    });
    expect(gh.callsOf("issue", "edit")).toHaveLength(1);
    expect(gh.callsOf("issue", "comment")[0]?.env.GH_TOKEN).toBe(true);

    const before = { gh: gh.calls().length, model: fake.requests().length };
    const other = await runAction({ env, event: labeledEvent(8, "bug"), inputs });
    expect(other.code, other.log).toBe(0);
    expect(other.log).toContain(
      "the label added is 'bug', not the trigger label 'whilly-pending'; nothing to do",
    );
    expect(other.outputs).toEqual({ "plan-id": "", created: "false", "tasks-count": "0" });
    expect({ gh: gh.calls().length, model: fake.requests().length }).toEqual(before);
  }, 120_000);

  it("workflow_dispatch with oidc: true asks GitHub for a token with the audience; dry-run stores nothing", async () => {
    const { env } = issues();
    const dispatch = { name: "workflow_dispatch", payload: { inputs: { "issue-number": "8" } } };
    const inputs = { ...common, "control-url": server.url, oidc: "true", "oidc-audience": AUDIENCE };
    const dry = await runAction({
      env: { ...env, ...endpoint.env },
      event: dispatch,
      inputs: { ...inputs, "dry-run": "true" },
    });
    expect(dry.code, dry.log).toBe(0);
    expect(dry.outputs).toEqual({ "plan-id": "issue-acme-widgets-8", created: "false", "tasks-count": "0" });
    expect(await adminGet(server.url, "/api/v1/plans?github_issue_ref=acme/widgets/8")).toEqual({
      plans: [],
    });

    const run = await runAction({ env: { ...env, ...endpoint.env }, event: dispatch, inputs });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toEqual({ "plan-id": "issue-acme-widgets-8", created: "true", "tasks-count": "3" });
    expect(endpoint.audiences).toEqual([AUDIENCE, AUDIENCE]);
    const again = await runAction({ env: { ...env, ...endpoint.env }, event: dispatch, inputs });
    expect(again.outputs).toEqual({
      "plan-id": "issue-acme-widgets-8",
      created: "false",
      "tasks-count": "3",
    });
  }, 120_000);

  it("an OIDC token of another repository is refused before gh or the model; no OIDC permission is a clear error", async () => {
    const { env, gh } = issues();
    const inputs = { ...common, "control-url": server.url, oidc: "true", "oidc-audience": AUDIENCE };
    const before = fake.requests().length;
    repository = "evil/widgets";
    try {
      const run = await runAction({
        env: { ...env, ...endpoint.env },
        event: labeledEvent(9, "whilly-pending"),
        inputs,
      });
      expect(run.code).not.toBe(0);
      expect(run.log).toMatch(/answered 403 repository_not_allowed/);
      expect(run.log).toContain("::error::whilly forge intake acme/widgets/9 failed");
    } finally {
      repository = "acme/widgets";
    }
    expect(gh.calls()).toEqual([]);
    expect(fake.requests().length).toBe(before);

    const bare = await runAction({ env, event: labeledEvent(9, "whilly-pending"), inputs });
    expect(bare.code).toBe(1);
    expect(bare.log).toContain("::error::oidc: true, but the job cannot request an OIDC token");
    expect(bare.log).toContain("permissions: id-token: write");
  }, 120_000);
});
