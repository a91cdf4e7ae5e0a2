import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeAnthropic, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runBin,
  spawnBin,
  waitFor,
} from "../support/cli.js";
import { pathWithoutGh } from "../support/fake-gh.js";
import { createdAt, forgeEnv, github, ISSUE_BODY, PLAN_ID, REF } from "./forge-support.js";
import {
  agentRequestsSince,
  cycleThenValid,
  expectLockedDown,
  expectOnlyInFence,
  expectValidPlanStored,
  INJECTED,
  MODEL_PRD,
  recordedStart,
  storedPlan,
  VALID_PLAN,
} from "./init-support.js";

// `whilly forge intake` as a user runs it: the built CLI, the REAL Claude Code CLI against the scripted
// fake model (a cyclic plan first, then a valid one), and the fake gh on PATH as GitHub.

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({ script: cycleThenValid() }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly forge intake", () => {
  it("stores the second (valid) plan, then makes the labels, flips the issue and comments once; a rerun does nothing", async () => {
    fake.setScript(cycleThenValid());
    const repo = makeRepo(template);
    const { env, gh, record } = forgeEnv(fake, github());
    const from = fake.requests().length;
    const result = await runBin(["forge", "intake", REF, "--budget", "3"], { cwd: repo, env });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(
      new RegExp(`^✓ Plan '${PLAN_ID}' created from ${REF} \\(3 tasks, budget \\$3\\.00\\)`),
    );
    expect(result.err).toMatch(
      /checking the store for a plan of acme\/widgets\/7 before any gh or model call/,
    );
    expect(result.err).toMatch(
      /the answer is not a valid plan \(1 problem\):\n {2}- Cycle detected: T-1 → T-2 → T-1/,
    );
    expect(readFileSync(join(repo, "docs", `PRD-${PLAN_ID}.md`), "utf8")).toBe(`${MODEL_PRD}\n`);

    const { plan, tasks } = await storedPlan(repo, PLAN_ID);
    expectValidPlanStored(tasks);
    expect(plan).toMatchObject({
      name: "Todo",
      budgetMicroUsd: 3_000_000,
      githubIssueRef: REF,
      origin: {
        kind: "github_issue",
        reference: REF,
        url: "https://github.com/acme/widgets/issues/7",
        title: "Todo lists with due dates",
      },
    });
    expect(plan?.extra).toEqual({ prd_file: `docs/PRD-${PLAN_ID}.md` });

    // The model saw the issue only inside its fences, and ran locked down.
    const requests = agentRequestsSince(fake, from);
    expect(requests.map((r) => [r.script, r.attempt])).toEqual([
      ["generate:prd", 1],
      ["generate:plan", 1],
      ["generate:plan", 2],
    ]);
    for (const request of requests) {
      expectOnlyInFence(request.prompt ?? "", INJECTED, "issue_body");
      expect(request.prompt).toContain(
        "<UNTRUSTED kind=issue_comment_1>\nalice: Please keep it small.\n</UNTRUSTED>",
      );
    }
    for (const n of [0, 1, 2]) expectLockedDown(recordedStart(record, n));

    // gh: read, labels made, one flip after the commit, one comment.
    const calls = gh.calls().map((c) => c.argv.slice(0, 2).join(" "));
    expect(calls).toEqual([
      "issue view",
      "label list",
      "label create",
      "label create",
      "issue edit",
      "issue comment",
    ]);
    expect(gh.callsOf("label", "create").map((c) => c.argv[2])).toEqual([
      "whilly-in-progress",
      "whilly-in-review",
    ]);
    const [edit] = gh.callsOf("issue", "edit");
    expect(edit?.argv).toEqual([
      "issue",
      "edit",
      "7",
      "--repo",
      "acme/widgets",
      "--remove-label",
      "whilly-pending",
      "--add-label",
      "whilly-in-progress",
    ]);
    expect(new Date(edit?.time ?? 0).getTime()).toBeGreaterThanOrEqual(
      createdAt(await eventsOf(repo, PLAN_ID)),
    );
    const state = gh.state().repos?.["acme/widgets"];
    expect(state?.issues?.[0]?.labels).toEqual(["enhancement", "whilly-in-progress"]);
    const comments = state?.issues?.[0]?.comments ?? [];
    expect(comments).toHaveLength(2);
    expect(comments[1]?.body).toContain(
      `whilly made plan \`${PLAN_ID}\` from this issue: 3 tasks, budget $3.00.`,
    );

    // Again: the store answers before gh or the model is asked anything.
    const before = { gh: gh.calls().length, model: fake.requests().length };
    const again = await runBin(["forge", "intake", REF, "--json"], { cwd: repo, env });
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({
      plan_id: PLAN_ID,
      created: false,
      outcome: "exists",
      tasks_count: 3,
    });
    expect({ gh: gh.calls().length, model: fake.requests().length }).toEqual(before);
    const text = await runBin(["forge", "intake", "Acme/Widgets/7"], { cwd: repo, env });
    expect(text.out).toBe(`plan '${PLAN_ID}' already exists for ${REF}; nothing to do\n`);
  }, 180_000);

  it("refuses a closed issue and one without the trigger label unless --force; nothing asked of the model", async () => {
    const repo = makeRepo(template);
    const from = fake.requests().length;
    const closed = forgeEnv(fake, github({ state: "CLOSED" }));
    const one = await runBin(["forge", "intake", REF], { cwd: repo, env: closed.env });
    expect(one.code).toBe(1);
    expect(one.err).toMatch(/issue acme\/widgets\/7 is closed; not taken in/);
    expect(one.err).toMatch(/--force/);
    const unlabelled = forgeEnv(fake, github({ labels: ["enhancement"] }));
    const two = await runBin(["forge", "intake", REF, "--label", "plan-me"], {
      cwd: repo,
      env: unlabelled.env,
    });
    expect(two.code).toBe(1);
    expect(two.err).toMatch(/does not have the label 'plan-me'; not taken in/);
    for (const gh of [closed.gh, unlabelled.gh]) {
      expect(gh.calls().map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["issue view"]);
    }
    expect(fake.requests().length).toBe(from);
    expect((await storedPlan(repo, PLAN_ID)).plan).toBeUndefined();
  }, 60_000);

  it("a bad reference, a missing gh, a logged-out gh, a missing issue: clear errors, no model call", async () => {
    const repo = makeRepo(template);
    const from = fake.requests().length;
    const { env, gh } = forgeEnv(fake, github());
    const bad = await runBin(["forge", "intake", "acme/widgets#7"], { cwd: repo, env });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/issue_ref 'acme\/widgets#7' is not a GitHub issue reference owner\/repo\/N/);
    expect(gh.calls()).toEqual([]);

    const missing = await runBin(["forge", "intake", REF], {
      cwd: repo,
      env: { ...env, PATH: pathWithoutGh() },
    });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/gh, the GitHub CLI, is not on PATH/);
    expect(missing.err).toMatch(/cli\.github\.com/);

    const out = forgeEnv(fake, github({}, { auth: { logged_in: false } }));
    const loggedOut = await runBin(["forge", "intake", REF], { cwd: repo, env: out.env });
    expect(loggedOut.code).toBe(2);
    expect(loggedOut.err).toMatch(/gh is not logged in to GitHub/);

    const none = await runBin(["forge", "intake", "acme/widgets/99"], { cwd: repo, env });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/GitHub issue acme\/widgets\/99 was not found/);
    expect(fake.requests().length).toBe(from);
    expect(ISSUE_BODY).toContain(INJECTED);
    expect(existsSync(join(repo, "docs"))).toBe(false);
  }, 60_000);

  it("--force takes an unlabelled issue; a failed flip is a warning with the command; --no-label-flip leaves labels alone", async () => {
    fake.setScript({
      generate: {
        prd: { turns: [{ text: MODEL_PRD }] },
        plan: { turns: [{ text: JSON.stringify(VALID_PLAN) }] },
      },
    });
    const repo = makeRepo(template);
    const failing = { args: ["issue", "edit"], times: 1, stderr: "HTTP 502: Bad Gateway\n" };
    const { env, gh } = forgeEnv(fake, github({ labels: ["enhancement"] }, { failures: [failing] }));
    const forced = await runBin(["forge", "intake", REF, "--force", "--json"], { cwd: repo, env });
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toMatch(/does not have the label 'whilly-pending'; taken in anyway \(--force\)/);
    expect(forced.err).toMatch(
      /could not label the issue \(gh issue edit failed \(exit 1\): HTTP 502: Bad Gateway\); by hand: gh issue edit 7 --repo acme\/widgets --add-label whilly-in-progress/,
    );
    expect(JSON.parse(forced.out)).toMatchObject({ created: true, label_flipped: false, commented: true });
    expect(gh.callsOf("issue", "edit")[0]?.argv).not.toContain("--remove-label");

    const other = forgeEnv(fake, github({ number: 8 }));
    const kept = await runBin(["forge", "intake", "acme/widgets/8", "--no-label-flip"], {
      cwd: repo,
      env: other.env,
    });
    expect(kept.code, kept.err).toBe(0);
    expect(other.gh.calls().map((c) => c.argv.slice(0, 2).join(" "))).toEqual([
      "issue view",
      "issue comment",
    ]);
    expect(other.gh.state().repos?.["acme/widgets"]?.issues?.[0]?.labels).toEqual([
      "whilly-pending",
      "enhancement",
    ]);
  }, 120_000);

  it("Ctrl-C while the model writes the plan: exit 130, nothing stored, the issue untouched", async () => {
    fake.setScript({
      generate: {
        prd: { turns: [{ text: MODEL_PRD }] },
        plan: { turns: [{ text: "{}", delay_ms: 60_000 }] },
      },
    });
    const repo = makeRepo(template);
    const { env, gh } = forgeEnv(fake, github());
    const from = fake.requests().length;
    const run = spawnBin(["forge", "intake", REF], { cwd: repo, env });
    // Claude Code starts before the plan request: seconds on a loaded machine.
    await waitFor(
      "the plan request",
      () => (agentRequestsSince(fake, from).some((r) => r.script === "generate:plan") ? true : undefined),
      45_000,
    );
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(result.code, result.err).toBe(130);
    expect(result.err).toMatch(/interrupted; nothing was stored and the issue was not changed/);
    expect((await storedPlan(repo, PLAN_ID)).plan).toBeUndefined();
    expect(gh.calls().map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["issue view"]);
  }, 120_000);
});
