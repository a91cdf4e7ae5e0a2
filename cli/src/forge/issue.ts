import { type GithubIssueRef, parseGithubIssueRef, TransportError, type UntrustedPiece } from "@whilly/core";
import { UsageError } from "../exit-codes.js";
import { type Gh, ghError, ghJson } from "../github/gh.js";

/** An issue as forge intake reads it (`gh issue view --json number,title,body,labels,comments,state,url`). */
export type ForgeIssue = {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  /** `OPEN` or `CLOSED`. */
  readonly state: string;
  readonly url: string;
  readonly labels: readonly string[];
  readonly comments: readonly { readonly author: string; readonly body: string }[];
};

/** An issue reference as given (`owner`/`repo` as typed, for gh) and canonical (for the store). */
export type IssueTarget = GithubIssueRef & {
  /** `owner/repo` as the user typed it. */
  readonly repoArg: string;
  /** The plan id: `issue-<owner>-<repo>-<N>`. */
  readonly planId: string;
};

/**
 * The caps of the title, body and each comment in the prompt, UTF-8 bytes. With
 * {@link MAX_PROMPT_COMMENTS}, the PRD (`prd`) and a retry's quoted answer, a plan prompt stays under
 * core's `MAX_PROMPT_BYTES` (one command-line argument).
 */
export const ISSUE_PIECE_BYTES = { title: 1024, body: 16 * 1024, comment: 4 * 1024, prd: 24 * 1024 } as const;

/** The most comments put in the prompt (the first ones); later ones are counted in a last piece. */
export const MAX_PROMPT_COMMENTS = 8;

const VIEW_FIELDS = "number,title,body,labels,comments,state,url";

/**
 * Reads `owner/repo/N`; the plan id is `issue-<owner>-<repo>-<N>`, lower case, every other character
 * run made one `-`.
 * @throws {UsageError} naming the argument when it is not such a reference (exit 2).
 */
export function issueTarget(text: string): IssueTarget {
  const ref = parseGithubIssueRef(text.trim());
  if (ref === undefined) {
    throw new UsageError(`issue_ref '${text}' is not a GitHub issue reference owner/repo/N`, {
      hint: "e.g. whilly forge intake acme/widgets/42",
    });
  }
  const [owner = "", repo = ""] = text.trim().split("/");
  const planId = `issue-${ref.owner}-${ref.repo}-${ref.number}`.replace(/[^a-z0-9]+/g, "-");
  return { ...ref, repoArg: `${owner}/${repo}`, planId };
}

/**
 * Reads the issue with gh.
 * @throws {TransportError} when the issue does not exist (exit 1), or gh failed; what `Gh.ok`
 *   throws for a missing or logged-out gh (exit 2).
 */
export async function readIssue(gh: Gh, target: IssueTarget): Promise<ForgeIssue> {
  const args = ["issue", "view", String(target.number), "--repo", target.repoArg, "--json", VIEW_FIELDS];
  const result = await gh.run(args);
  if (result.code !== 0) {
    if (/could not (resolve|find)/i.test(result.stderr)) {
      throw new TransportError(
        `GitHub issue ${target.ref} was not found (gh: ${result.stderr.trim().split("\n")[0]})`,
        undefined,
        {
          retryable: false,
          hint: "check the owner, repository and number, and that gh's account can see it",
        },
      );
    }
    throw ghError(args, result);
  }
  type Raw = {
    number?: number;
    title?: string;
    body?: string;
    state?: string;
    url?: string;
    labels?: { name?: string }[];
    comments?: { author?: { login?: string } | null; body?: string }[];
  };
  const raw = ghJson<Raw>(args, result.stdout);
  return {
    number: raw.number ?? target.number,
    title: raw.title ?? "",
    body: raw.body ?? "",
    state: (raw.state ?? "OPEN").toUpperCase(),
    url: raw.url ?? `https://github.com/${target.repoArg}/issues/${target.number}`,
    labels: (raw.labels ?? []).map((l) => l.name ?? "").filter((n) => n !== ""),
    comments: (raw.comments ?? []).map((c) => ({ author: c.author?.login ?? "ghost", body: c.body ?? "" })),
  };
}

/**
 * Why the issue is not taken (closed, or without the trigger label), or `undefined` when it is.
 * Labels compare without case, as GitHub's do.
 */
export function refusal(issue: ForgeIssue, target: IssueTarget, label: string): string | undefined {
  if (issue.state !== "OPEN") return `issue ${target.ref} is ${issue.state.toLowerCase()}`;
  if (!hasLabel(issue, label)) return `issue ${target.ref} does not have the label '${label}'`;
  return undefined;
}

/** What to do about a {@link refusal}: reopen a closed issue, label an unlabelled one; or `--force`. */
export function refusalHint(issue: ForgeIssue, label: string): string {
  const fix = issue.state !== "OPEN" ? "reopen it" : `label it ${label}`;
  return `${fix}, or pass --force to take it in anyway`;
}

/** Whether the issue carries `label` (any case). */
export function hasLabel(issue: ForgeIssue, label: string): boolean {
  return issue.labels.some((l) => l.toLowerCase() === label.toLowerCase());
}

/**
 * The issue as untrusted prompt pieces: title, body, and each comment (`author: body`), each capped;
 * past {@link MAX_PROMPT_COMMENTS} comments, a last piece says how many were left out.
 */
export function issuePieces(issue: ForgeIssue): UntrustedPiece[] {
  const pieces: UntrustedPiece[] = [
    { kind: "issue_title", text: issue.title, maxBytes: ISSUE_PIECE_BYTES.title },
    { kind: "issue_body", text: issue.body || "(empty issue)", maxBytes: ISSUE_PIECE_BYTES.body },
  ];
  issue.comments.slice(0, MAX_PROMPT_COMMENTS).forEach((comment, i) => {
    pieces.push({
      kind: `issue_comment_${i + 1}`,
      text: `${comment.author}: ${comment.body}`,
      maxBytes: ISSUE_PIECE_BYTES.comment,
    });
  });
  const left = issue.comments.length - MAX_PROMPT_COMMENTS;
  if (left > 0) pieces.push({ kind: "issue_comments_omitted", text: `${left} later comments not shown` });
  return pieces;
}
