import { displayUsd } from "@whilly/core";
import type { Gh } from "../github/gh.js";
import { ensureLabels, WHILLY_LABELS } from "../github/labels.js";
import { type ForgeIssue, hasLabel, type IssueTarget } from "./issue.js";

/** What was done on the issue after the plan was stored; a failed step is a warning, never a failure. */
export type IssueUpdates = {
  readonly labelsMade: readonly string[];
  readonly flipped: boolean;
  readonly commented: boolean;
  /** One line per step that failed, with the command to run by hand. */
  readonly warnings: readonly string[];
};

/** The plan as the comment on the issue describes it. */
export type StoredPlan = {
  readonly planId: string;
  readonly tasksCount: number;
  /** µUSD; `undefined` for unlimited. */
  readonly budgetMicroUsd: number | undefined;
};

/**
 * Runs after the plan is committed, and only for the intake that created it: makes the labels whilly
 * uses when the repository lacks them (`gh issue edit --add-label` fails on a missing one), moves the
 * issue from the trigger label to `whilly-in-progress` (unless `flip` is false), and comments once with
 * the plan id, task count and budget.
 */
export async function updateIssue(
  gh: Gh,
  target: IssueTarget,
  issue: ForgeIssue,
  input: { readonly plan: StoredPlan; readonly label: string; readonly flip: boolean },
): Promise<IssueUpdates> {
  const warnings: string[] = [];
  const repo = target.repoArg;
  const number = String(target.number);
  let labelsMade: string[] = [];
  let flipped = false;
  const inProgress = WHILLY_LABELS.inProgress.name;
  if (input.flip) {
    try {
      labelsMade = await ensureLabels(gh, repo, Object.values(WHILLY_LABELS));
      const remove = hasLabel(issue, input.label) ? ["--remove-label", input.label] : [];
      await gh.ok(["issue", "edit", number, "--repo", repo, ...remove, "--add-label", inProgress]);
      flipped = true;
    } catch (error) {
      const remove = hasLabel(issue, input.label) ? ` --remove-label ${input.label}` : "";
      warnings.push(
        `could not label the issue (${messageOf(error)}); by hand: gh issue edit ${number} --repo ${repo}${remove} --add-label ${inProgress}`,
      );
    }
  }
  let commented = false;
  const body = commentBody(input.plan);
  try {
    await gh.ok(["issue", "comment", number, "--repo", repo, "--body-file", "-"], { input: body });
    commented = true;
  } catch (error) {
    warnings.push(
      `could not comment on the issue (${messageOf(error)}); by hand: gh issue comment ${number} --repo ${repo} --body '...'`,
    );
  }
  return { labelsMade, flipped, commented, warnings };
}

/** The comment whilly leaves on the issue: the plan, its size and its budget. */
export function commentBody(plan: StoredPlan): string {
  const count = `${plan.tasksCount} task${plan.tasksCount === 1 ? "" : "s"}`;
  const budget =
    plan.budgetMicroUsd === undefined ? "no budget cap" : `budget ${displayUsd(plan.budgetMicroUsd)}`;
  return [
    `whilly made plan \`${plan.planId}\` from this issue: ${count}, ${budget}.`,
    "",
    `Workers pick its tasks up from the queue; \`whilly plan show ${plan.planId}\` shows their progress.`,
    "",
    `<!-- whilly:plan ${plan.planId} -->`,
    "",
  ].join("\n");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
