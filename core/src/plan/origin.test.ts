import { describe, expect, it } from "vitest";
import { PlanInvalid } from "../errors.js";
import { exportPlan } from "./export.js";
import { parseGithubIssueRef } from "./origin.js";
import { parsePlanFile, parsePlanObject } from "./parse-plan.js";

const TASK = {
  id: "A",
  status: "pending",
  priority: "high",
  description: "do A",
  dependencies: [],
  key_files: [],
  acceptance_criteria: ["A works"],
  test_steps: ["npm test"],
  prd_requirement: "",
};

function problems(plan: Record<string, unknown>): { path: string; message: string }[] {
  try {
    parsePlanObject({ project: "p", tasks: [TASK], ...plan }, "plan.json");
  } catch (error) {
    if (error instanceof PlanInvalid) return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  return [];
}

describe("parseGithubIssueRef", () => {
  it("reads owner/repo/N into lower case, without leading zeros", () => {
    expect(parseGithubIssueRef("Acme-Corp/My.Repo_2/007")).toEqual({
      owner: "acme-corp",
      repo: "my.repo_2",
      number: 7,
      ref: "acme-corp/my.repo_2/7",
    });
  });

  it.each([
    "acme/widgets",
    "acme/widgets/0",
    "acme/widgets/#4",
    "acme/widgets/4/",
    " acme/widgets/4",
    "-acme/widgets/4",
    "acme/../4",
    "https://github.com/acme/widgets/issues/4",
    "acme/wid gets/4",
  ])("refuses %j", (text) => {
    expect(parseGithubIssueRef(text)).toBeUndefined();
  });
});

describe("github_issue_ref and origin in a plan file", () => {
  it("reads both, canonical, out of extra, and export writes them back byte-stable", () => {
    const text = JSON.stringify({
      project: "Widgets",
      plan_id: "issue-acme-widgets-42",
      github_issue_ref: "Acme/Widgets/42",
      origin: {
        kind: "github_issue",
        reference: "acme/widgets/42",
        url: "https://github.com/acme/widgets/issues/42",
        title: "Add a widget",
      },
      prd_file: "docs/PRD-issue-acme-widgets-42.md",
      tasks: [TASK],
    });
    const plan = parsePlanFile(text, "plan.json");
    expect(plan.githubIssueRef).toBe("acme/widgets/42");
    expect(plan.origin).toEqual({
      kind: "github_issue",
      reference: "acme/widgets/42",
      url: "https://github.com/acme/widgets/issues/42",
      title: "Add a widget",
    });
    expect(plan.extra).toEqual({ prd_file: "docs/PRD-issue-acme-widgets-42.md" });
    const exported = exportPlan(plan, plan.tasks);
    expect(JSON.parse(exported)).toMatchObject({
      github_issue_ref: "acme/widgets/42",
      origin: { kind: "github_issue", title: "Add a widget" },
    });
    const again = parsePlanFile(exported, "export");
    expect(exportPlan(again, again.tasks)).toBe(exported);
  });

  it("takes the issue of a github_issue origin when github_issue_ref is absent", () => {
    const plan = parsePlanObject(
      { project: "p", tasks: [], origin: { kind: "github_issue", reference: "Acme/Widgets/9" } },
      "x",
    );
    expect(plan.githubIssueRef).toBe("acme/widgets/9");
    expect(plan.origin).toEqual({ kind: "github_issue", reference: "acme/widgets/9" });
  });

  it("leaves both out when absent or null; other origins have no issue", () => {
    const plain = parsePlanObject({ project: "p", tasks: [], github_issue_ref: null, origin: null }, "x");
    expect(plain).not.toHaveProperty("githubIssueRef");
    expect(plain).not.toHaveProperty("origin");
    expect(plain.extra).toEqual({});
    const idea = parsePlanObject(
      { project: "p", tasks: [], origin: { kind: "idea", reference: "dark mode for the dashboard" } },
      "x",
    );
    expect(idea.origin).toEqual({ kind: "idea", reference: "dark mode for the dashboard" });
    expect(idea).not.toHaveProperty("githubIssueRef");
  });

  it("names the field of every bad value", () => {
    expect(problems({ github_issue_ref: "acme/widgets#4" })).toEqual([
      {
        path: "github_issue_ref",
        message: `'github_issue_ref' must name a GitHub issue as owner/repo/N, e.g. "acme/widgets/42"; got 'acme/widgets#4'`,
      },
    ]);
    expect(problems({ github_issue_ref: 42 })[0]?.path).toBe("github_issue_ref");
    expect(problems({ origin: "github" })).toEqual([
      {
        path: "origin",
        message: `'origin' must be an object like {"kind": "github_issue", "reference": "acme/widgets/42"}; got 'github'`,
      },
    ]);
    expect(
      problems({ origin: { kind: "jira", reference: " ", url: "ftp://x", title: 3, ticket: "J-1" } }),
    ).toEqual([
      {
        path: "origin.ticket",
        message: "'origin'.ticket is not an origin field; origin holds kind, reference, url, title",
      },
      {
        path: "origin.kind",
        message: "'origin'.kind must be one of idea, prd, github_issue, taskmaster; got 'jira'",
      },
      { path: "origin.reference", message: "'origin'.reference must be a non-blank string; got ' '" },
      {
        path: "origin.url",
        message: `'origin'.url must be an http(s) URL, e.g. "https://github.com/acme/widgets/issues/42"; got 'ftp://x'`,
      },
      { path: "origin.title", message: "'origin'.title must be a string; got 3" },
    ]);
    expect(problems({ origin: { kind: "prd" } })).toEqual([
      {
        path: "origin.reference",
        message: "'origin'.reference is required: what the plan was made from (a slug, a file, owner/repo/N)",
      },
    ]);
    expect(problems({ origin: { kind: "github_issue", reference: "widgets 42" } })[0]).toEqual({
      path: "origin.reference",
      message: `'origin'.reference of a github_issue origin must name a GitHub issue as owner/repo/N, e.g. "acme/widgets/42"; got 'widgets 42'`,
    });
  });

  it("refuses a github_issue_ref that names another issue than the origin", () => {
    expect(
      problems({
        github_issue_ref: "acme/widgets/1",
        origin: { kind: "github_issue", reference: "acme/widgets/2" },
      }),
    ).toEqual([
      {
        path: "github_issue_ref",
        message:
          "'github_issue_ref' ('acme/widgets/1') and the github_issue origin's reference ('acme/widgets/2') name different issues; make them the same",
      },
    ]);
  });
});
