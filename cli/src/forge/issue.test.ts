import { describe, expect, it } from "vitest";
import { UsageError } from "../exit-codes.js";
import {
  type ForgeIssue,
  ISSUE_PIECE_BYTES,
  issuePieces,
  issueTarget,
  MAX_PROMPT_COMMENTS,
  refusal,
  refusalHint,
} from "./issue.js";
import { commentBody } from "./issue-updates.js";

const open: ForgeIssue = {
  number: 7,
  title: "Add it",
  body: "",
  state: "OPEN",
  url: "https://github.com/Acme/My.Repo/issues/7",
  labels: ["Whilly-Pending"],
  comments: [],
};

describe("forge intake's issue", () => {
  it("plan id: issue-<owner>-<repo>-<N>, lower case, other characters as '-'; gh gets the repository as typed", () => {
    expect(issueTarget("Acme/My.Repo_x/007")).toMatchObject({
      ref: "acme/my.repo_x/7",
      planId: "issue-acme-my-repo-x-7",
      repoArg: "Acme/My.Repo_x",
      number: 7,
    });
    for (const bad of ["acme/widgets", "acme/widgets/0", "acme/widgets/7/8", "acme/widgets/x", " /a/1"]) {
      expect(() => issueTarget(bad)).toThrow(UsageError);
    }
    expect(() => issueTarget("acme/widgets#7")).toThrow(/issue_ref 'acme\/widgets#7'/);
  });

  it("refuses a closed issue and one without the trigger label (labels compare without case)", () => {
    const target = issueTarget("acme/widgets/7");
    expect(refusal(open, target, "whilly-pending")).toBeUndefined();
    expect(refusal({ ...open, state: "CLOSED" }, target, "whilly-pending")).toBe(
      "issue acme/widgets/7 is closed",
    );
    expect(refusal(open, target, "plan-me")).toBe("issue acme/widgets/7 does not have the label 'plan-me'");
  });

  it("says to reopen a closed issue (not to label it) and to label an open one without the label", () => {
    const closed = { ...open, state: "CLOSED" };
    expect(refusalHint(closed, "whilly-pending")).toBe("reopen it, or pass --force to take it in anyway");
    expect(refusalHint(open, "plan-me")).toBe("label it plan-me, or pass --force to take it in anyway");
  });

  it("fences title, body and each comment as pieces; an empty body says so; extra comments are counted", () => {
    const comments = Array.from({ length: MAX_PROMPT_COMMENTS + 3 }, (_, i) => ({
      author: "bob",
      body: `c${i}`,
    }));
    const pieces = issuePieces({ ...open, comments });
    expect(pieces.slice(0, 3).map((p) => [p.kind, p.text])).toEqual([
      ["issue_title", "Add it"],
      ["issue_body", "(empty issue)"],
      ["issue_comment_1", "bob: c0"],
    ]);
    expect(pieces).toHaveLength(2 + MAX_PROMPT_COMMENTS + 1);
    expect(pieces.at(-1)).toMatchObject({
      kind: "issue_comments_omitted",
      text: "3 later comments not shown",
    });
  });

  it("comments with the plan id, task count and budget", () => {
    expect(commentBody({ planId: "issue-a-b-1", tasksCount: 1, budgetMicroUsd: undefined })).toContain(
      "whilly made plan `issue-a-b-1` from this issue: 1 task, no budget cap.",
    );
    expect(commentBody({ planId: "p", tasksCount: 4, budgetMicroUsd: 2_500_000 })).toContain(
      "4 tasks, budget $2.50.",
    );
  });
});

describe("forge intake's prompt size", () => {
  it("a plan prompt from the largest issue, PRD and retry stays under the argument limit", async () => {
    const { buildPlanPrompt, MAX_PROMPT_BYTES, PREVIOUS_ANSWER_BYTES, utf8Length } = await import(
      "@whilly/core"
    );
    const big = "x".repeat(100_000);
    const comments = Array.from({ length: 50 }, () => ({ author: "bob", body: big }));
    const pieces = [
      ...issuePieces({ ...open, title: big, body: big, comments }),
      { kind: "prd", text: big, maxBytes: ISSUE_PIECE_BYTES.prd },
    ];
    const prompt = buildPlanPrompt({
      pieces,
      secrets: [],
      attempt: { number: 2, of: 2 },
      previous: { answer: "y".repeat(PREVIOUS_ANSWER_BYTES * 2), problems: ["z".repeat(20_000)] },
    });
    expect(utf8Length(prompt)).toBeLessThan(MAX_PROMPT_BYTES);
  });
});
