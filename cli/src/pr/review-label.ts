import { type JsonValue, type PlanRecord, WhillyError } from "@whilly/core";
import { type Gh, ghJson } from "../github/gh.js";
import { ensureLabels, type IssueRef, parseIssueRef, WHILLY_LABELS } from "../github/labels.js";

/** What happened to the forge issue's labels. */
export type ReviewLabel = {
  readonly ref: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Labels made in the repository because it lacked them. */
  readonly created: readonly string[];
  /** Why the labels could not be changed, with the command to do it by hand; `undefined` when they were. */
  readonly warning: string | undefined;
};

/**
 * The GitHub issue a forge plan came from: its `github_issue_ref` (`owner/repo/N`), read from the
 * plan's own field when the store has one, else from the fields kept from its file.
 */
export function issueOf(plan: PlanRecord): IssueRef | undefined {
  const own = (plan as { githubIssueRef?: unknown }).githubIssueRef;
  const raw: JsonValue | undefined = typeof own === "string" ? own : plan.extra.github_issue_ref;
  return typeof raw === "string" ? parseIssueRef(raw) : undefined;
}

/**
 * Marks the issue as in review: `whilly-in-review` added (made first when the repository lacks it, as
 * `gh issue edit --add-label` fails on a missing label) and `whilly-in-progress` removed when the issue
 * has it. Nothing is edited when the labels are already so. A failure is a warning, not an error: the
 * pull request is open either way.
 */
export async function labelInReview(gh: Gh, issue: IssueRef): Promise<ReviewLabel> {
  const ref = `${issue.repo}/${issue.number}`;
  const review = WHILLY_LABELS.inReview.name;
  const progress = WHILLY_LABELS.inProgress.name;
  const number = String(issue.number);
  try {
    const view = ["issue", "view", number, "--repo", issue.repo, "--json", "labels"];
    const viewed = ghJson<{ labels: { name: string }[] }>(view, await gh.ok(view));
    const has = new Set(viewed.labels.map((l) => l.name));
    const add = has.has(review) ? [] : [review];
    const remove = has.has(progress) ? [progress] : [];
    if (add.length === 0 && remove.length === 0) {
      return { ref, added: [], removed: [], created: [], warning: undefined };
    }
    const created = add.length > 0 ? await ensureLabels(gh, issue.repo, [WHILLY_LABELS.inReview]) : [];
    const args = ["issue", "edit", number, "--repo", issue.repo];
    for (const label of add) args.push("--add-label", label);
    for (const label of remove) args.push("--remove-label", label);
    await gh.ok(args);
    return { ref, added: add, removed: remove, created, warning: undefined };
  } catch (error) {
    if (!(error instanceof WhillyError)) throw error;
    const manual = `gh issue edit ${number} --repo ${issue.repo} --add-label ${review}`;
    return {
      ref,
      added: [],
      removed: [],
      created: [],
      warning: `could not label issue ${issue.repo}#${number} ${review}: ${error.message}; do it by hand: ${manual}`,
    };
  }
}
