import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll, runCli } from "../../../../test/support/cli.js";
import { type FakeGhState, fakeGh, pathWithoutGh } from "../../../../test/support/fake-gh.js";
import { type Clones, git, makeClones, type PlanFields } from "../../../../test/support/integrate.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** GitHub as the fake holds it: `acme/shop`, whose git is the test's bare origin, and issue 7. */
function github(c: Clones, extra: Partial<FakeGhState> = {}): FakeGhState {
  return {
    default_repo: "acme/shop",
    repos: {
      "acme/shop": {
        git_dir: c.origin,
        labels: [{ name: "whilly-in-progress" }],
        issues: [{ number: 7, title: "Add checkout", labels: ["whilly-in-progress", "bug"] }],
      },
    },
    ...extra,
  };
}

/** Plan `p`: A, then B on A's work; both DONE at $0.0125 each, verified, and integrated into whilly/p. */
async function donePlan(c: Clones, plan: PlanFields = {}, integrate = true): Promise<void> {
  await c.importPlan([{ id: "A" }, { id: "B", dependencies: ["A"] }], plan);
  const a = c.work("A", { "a.txt": "a\n" });
  const b = c.work("B", { "b.txt": "b\n" }, a.commit);
  await c.finish({ A: a, B: b }, { costMicroUsd: 12_500, verification: "passed" });
  if (!integrate) return;
  const integrated = await c.whilly("plan", "integrate", "p");
  expect(integrated.code, integrated.err).toBe(0);
}

/** `whilly plan pr ...` in the user's clone with the fake gh on PATH. */
function planPr(c: Clones, env: Record<string, string>, ...argv: string[]) {
  return runCli(["plan", "pr", ...argv], { cwd: c.user, env: { ...c.env, ...env } });
}

describe("whilly plan pr", () => {
  it("pushes whilly/p and opens one pull request listing each task; a rerun updates that pull request", async () => {
    const c = makeClones(template);
    await donePlan(c);
    const gh = fakeGh(github(c));

    const first = await planPr(c, gh.env, "p", "--json");
    expect(first.code, first.err).toBe(0);
    const tip = git(c.env, c.user, "rev-parse", "whilly/p");
    expect(git(c.env, c.origin, "rev-parse", "refs/heads/whilly/p")).toBe(tip);
    expect(JSON.parse(first.out)).toMatchObject({
      plan_id: "p",
      branch: "whilly/p",
      tip,
      pull_request: { action: "opened", number: 8, url: "https://github.com/acme/shop/pull/8", base: "main" },
      tasks: [
        { task_id: "A", status: "DONE", cost_usd: "0.012500", verification: "passed" },
        { task_id: "B", status: "DONE", cost_usd: "0.012500", verification: "passed" },
      ],
      not_done: [],
      issue: null,
    });
    expect(first.err).toContain("pr: pushed whilly/p to origin\n");
    expect(first.err).toContain("pr: opened pull request #8: https://github.com/acme/shop/pull/8\n");
    const pulls = gh.state().repos?.["acme/shop"]?.pulls ?? [];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({
      head: "whilly/p",
      base: "main",
      title: "whilly: Project p",
      draft: false,
    });
    const body = pulls[0]?.body ?? "";
    const [a, b] = ["A", "B"].map((id) =>
      git(c.env, c.worker, "rev-parse", `whilly-tasks/p/${id.toLowerCase()}`),
    );
    expect(body).toContain("all 2 tasks DONE");
    expect(body).toContain(`| A | DONE | $0.0125 | passed | ${a?.slice(0, 12)} (\`whilly-tasks/p/a\`) |`);
    expect(body).toContain(`| B | DONE | $0.0125 | passed | ${b?.slice(0, 12)} (\`whilly-tasks/p/b\`) |`);
    expect(body).toContain("Total cost: $0.025 over 2 attempts.");
    expect(body).not.toContain("Closes");
    const create = gh.callsOf("pr", "create")[0];
    expect(create?.argv).toEqual([
      "pr",
      "create",
      "--head",
      "whilly/p",
      "--title",
      "whilly: Project p",
      "--body-file",
      "-",
    ]);
    expect(create?.stdin).toBe(body);
    expect(create?.cwd).toBe(c.user);
    // whilly's own settings and secrets never reach gh; prompts are off.
    expect(create?.env_names.filter((n) => n.startsWith("WHILLY_"))).toEqual([]);
    expect(create?.env.GH_PROMPT_DISABLED).toBe("1");

    const again = await planPr(c, gh.env, "p", "--base", "main");
    expect(again.code, again.err).toBe(0);
    expect(again.out).toBe(
      "updated pull request #8: https://github.com/acme/shop/pull/8\n  whilly/p → main\n",
    );
    expect(gh.state().repos?.["acme/shop"]?.pulls).toHaveLength(1);
    expect(gh.callsOf("pr", "create")).toHaveLength(1);
    expect(gh.callsOf("pr", "edit").map((call) => call.argv.slice(0, 3))).toEqual([["pr", "edit", "8"]]);
    // The base is never pushed.
    expect(git(c.env, c.origin, "log", "--format=%s", "main")).toBe("init");
  });

  it("refuses a plan with tasks not DONE unless --partial, which opens it with the DONE tasks", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B", dependencies: ["A"] }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    expect((await c.whilly("plan", "integrate", "p")).code).toBe(0);
    const gh = fakeGh(github(c));

    const refused = await planPr(c, gh.env, "p");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("error: plan 'p' has tasks that are not DONE: B (PENDING)");
    expect(refused.err).toContain("whilly plan pr p --partial");
    expect(gh.calls()).toEqual([]);
    expect(git(c.env, c.origin, "branch", "--list", "whilly/p")).toBe("");

    const partial = await planPr(c, gh.env, "p", "--partial", "--draft");
    expect(partial.code, partial.err).toBe(0);
    expect(partial.out).toContain("  not in it (not DONE): B (PENDING)\n");
    const pr = gh.state().repos?.["acme/shop"]?.pulls?.[0];
    expect(pr).toMatchObject({ title: "whilly: Project p (1 of 2 tasks)", draft: true });
    expect(pr?.body).toContain("1 of 2 tasks DONE; only their work is in this branch");
    expect(pr?.body).toContain("| B | PENDING | $0.00 | — | — |");
  });

  it("refuses a missing integration branch, and one lacking a DONE task's work, pointing to plan integrate", async () => {
    const c = makeClones(template);
    await donePlan(c, {}, false);
    const gh = fakeGh(github(c));

    const missing = await planPr(c, gh.env, "p");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("error: the integration branch whilly/p does not exist in");
    expect(missing.err).toContain("run whilly plan integrate p first");

    git(c.env, c.user, "branch", "whilly/p", "main");
    const lacking = await planPr(c, gh.env, "p");
    expect(lacking.code).toBe(1);
    expect(lacking.err).toContain("error: whilly/p does not hold the work of task A, B\n");
    expect(gh.callsOf("pr")).toEqual([]);
    expect(git(c.env, c.origin, "branch", "--list", "whilly/p")).toBe("");
  });

  it("exits 2 with a hint when gh is missing or not logged in, and when gh hangs past WHILLY_GH_TIMEOUT exits 1", async () => {
    const c = makeClones(template);
    await donePlan(c);

    const none = await planPr(c, { PATH: pathWithoutGh() }, "p");
    expect(none.code).toBe(2);
    expect(none.err).toContain("error: gh, the GitHub CLI, is not on PATH");
    expect(none.err).toContain("hint: install it (https://cli.github.com)");

    const out = fakeGh(github(c, { auth: { logged_in: false } }));
    const loggedOut = await planPr(c, out.env, "p");
    expect(loggedOut.code).toBe(2);
    expect(loggedOut.err).toContain("error: gh is not logged in to GitHub");
    expect(loggedOut.err).toContain("hint: run gh auth login, or set GH_TOKEN");
    expect(git(c.env, c.origin, "branch", "--list", "whilly/p")).toBe("");

    const slow = fakeGh(github(c, { failures: [{ args: ["auth"], sleep_ms: 5000, pass: true }] }));
    const timedOut = await planPr(c, { ...slow.env, WHILLY_GH_TIMEOUT: "300ms" }, "p");
    expect(timedOut.code).toBe(1);
    expect(timedOut.err).toContain("error: gh auth status did not finish within 0.3 s");
  });

  it("closes a forge plan's issue and moves it to whilly-in-review, making the label; once; a failed flip warns", async () => {
    const c = makeClones(template);
    await donePlan(c, { github_issue_ref: "acme/shop/7", project: "Add checkout" });
    // No default repository: gh is told the issue's.
    const { default_repo: _, ...forge } = github(c);
    const gh = fakeGh(forge);

    const first = await planPr(c, gh.env, "p", "--json");
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out).issue).toEqual({
      ref: "acme/shop/7",
      added: ["whilly-in-review"],
      removed: ["whilly-in-progress"],
      created: ["whilly-in-review"],
      warning: null,
    });
    expect(first.err).toContain("pr: issue acme/shop#7: +whilly-in-review -whilly-in-progress\n");
    const repo = gh.state().repos?.["acme/shop"];
    expect(repo?.pulls?.[0]?.body).toMatch(/\n\nCloses #7\n$/);
    expect(repo?.pulls?.[0]?.title).toBe("whilly: Add checkout");
    expect(repo?.issues?.[0]?.labels).toEqual(["bug", "whilly-in-review"]);
    expect(repo?.labels?.map((l) => l.name)).toEqual(["whilly-in-progress", "whilly-in-review"]);
    expect(gh.callsOf("pr", "create")[0]?.argv).toContain("--repo");

    const again = await planPr(c, gh.env, "p");
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("updated pull request #8");
    expect(gh.callsOf("issue", "edit")).toHaveLength(1);
    expect(gh.callsOf("label", "create")).toHaveLength(1);

    // A failed flip is a warning with the command to run by hand: the pull request is open either way.
    const before = gh.state();
    const issue = before.repos?.["acme/shop"]?.issues?.[0];
    if (issue) issue.labels = ["whilly-in-progress"];
    gh.setState({ ...before, failures: [{ args: ["issue", "edit"], stderr: "HTTP 502: Bad Gateway\n" }] });
    const warned = await planPr(c, gh.env, "p");
    expect(warned.code, warned.err).toBe(0);
    expect(warned.err).toContain(
      "pr: warning: could not label issue acme/shop#7 whilly-in-review: gh issue edit failed (exit 1): HTTP 502: Bad Gateway; do it by hand: gh issue edit 7 --repo acme/shop --add-label whilly-in-review\n",
    );
  });
});
