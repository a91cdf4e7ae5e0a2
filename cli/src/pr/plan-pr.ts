import { formatUsd, InvalidInput, type PlanRecord, type TaskRecord, type TaskStatus } from "@whilly/core";
import { type Gh, requireGh } from "../github/gh.js";
import { integrationQueue } from "../integrate/order.js";
import { prText } from "./body.js";
import { checkBranch, type PrBranch, pushBranch } from "./branch.js";
import { openOrUpdate, type PullRequest } from "./pull-request.js";
import { issueOf, labelInReview, type ReviewLabel } from "./review-label.js";

/** Options of {@link planPr}. */
export type PlanPrOptions = {
  readonly plan: PlanRecord;
  readonly tasks: readonly TaskRecord[];
  readonly at: PrBranch;
  readonly base: string | undefined;
  readonly draft: boolean;
  /** Open the pull request with the DONE tasks only, instead of refusing a plan not all DONE. */
  readonly partial: boolean;
  readonly gh: Gh;
  /** One line of progress (stderr). */
  readonly progress: (line: string) => void;
  /** Ctrl-C: no further step starts (the caller exits 130). */
  readonly signal?: AbortSignal | undefined;
};

/** What `plan pr` did. */
export type PlanPrReport = {
  readonly planId: string;
  readonly branch: string;
  readonly remote: string;
  readonly tip: string;
  readonly pr: PullRequest;
  readonly tasks: readonly TaskRecord[];
  readonly notDone: readonly { readonly id: string; readonly status: TaskStatus }[];
  readonly issue: ReviewLabel | undefined;
};

/**
 * Opens (or updates) the pull request of a plan's integration branch: refuses a plan whose tasks are not
 * all DONE (unless `partial`) and a branch that lacks a DONE task's work, checks gh is logged in, pushes
 * the branch (never forced, never the base), opens or updates the pull request, and moves a forge
 * plan's issue to `whilly-in-review`.
 * @throws InvalidInput for a plan or branch not ready (exit 1); ConfigurationError for a missing or
 *   logged-out gh (exit 2); TransportError when git push or gh failed.
 */
export async function planPr(options: PlanPrOptions): Promise<PlanPrReport> {
  const { plan, tasks, at, gh, progress } = options;
  const step = () => options.signal?.throwIfAborted();
  const queue = integrationQueue(tasks);
  ready(plan, queue, options.partial);
  await requireGh(gh);
  const tip = await checkBranch(at, queue.done, (plan.verify ?? []).length > 0);
  progress(`${at.branch} holds the work of ${queue.done.length} DONE task(s), tip ${tip.slice(0, 12)}`);
  step();
  await pushBranch(at);
  progress(`pushed ${at.branch} to ${at.remote}`);
  step();
  const issue = issueOf(plan);
  const text = prText({ plan, tasks, branch: at.branch, issue });
  const pr = await openOrUpdate(gh, text, {
    head: at.branch,
    base: options.base,
    draft: options.draft,
    repo: issue?.repo,
  });
  progress(`${pr.action} pull request #${pr.number}: ${pr.url}`);
  step();
  let label: ReviewLabel | undefined;
  if (issue !== undefined) {
    label = await labelInReview(gh, issue);
    if (label.warning !== undefined) progress(`warning: ${label.warning}`);
    else if (label.added.length > 0 || label.removed.length > 0) {
      const changes = [...label.added.map((l) => `+${l}`), ...label.removed.map((l) => `-${l}`)];
      progress(`issue ${issue.repo}#${issue.number}: ${changes.join(" ")}`);
    }
  }
  return {
    planId: plan.id,
    branch: at.branch,
    remote: at.remote,
    tip,
    pr,
    tasks,
    notDone: queue.notDone,
    issue: label,
  };
}

/** @throws InvalidInput (field `plan_id`) when the plan has no DONE task, or tasks not DONE without `partial`. */
function ready(plan: PlanRecord, queue: ReturnType<typeof integrationQueue>, partial: boolean): void {
  if (queue.done.length === 0) {
    throw new InvalidInput("plan_id", `plan '${plan.id}' has no DONE task: there is nothing to review`, {
      hint: `run its tasks first (whilly run, or workers), then whilly plan integrate ${plan.id}`,
    });
  }
  if (queue.notDone.length === 0 || partial) return;
  const listed = queue.notDone.map((t) => `${t.id} (${t.status})`).join(", ");
  throw new InvalidInput("plan_id", `plan '${plan.id}' has tasks that are not DONE: ${listed}`, {
    hint: `finish them first, or open the pull request with the DONE tasks' work only: whilly plan pr ${plan.id} --partial`,
  });
}

/** The JSON of `plan pr --json`. */
export function planPrJson(report: PlanPrReport) {
  return {
    plan_id: report.planId,
    branch: report.branch,
    remote: report.remote,
    tip: report.tip,
    pull_request: {
      action: report.pr.action,
      number: report.pr.number,
      url: report.pr.url,
      base: report.pr.base,
      draft: report.pr.draft,
    },
    tasks: report.tasks.map((t) => ({
      task_id: t.id,
      status: t.status,
      cost_usd: formatUsd(t.spentMicroUsd),
      verification: t.status === "DONE" ? (t.verification ?? "unverified") : null,
      branch: t.work?.branch ?? null,
      commit: t.work?.commit ?? null,
    })),
    not_done: report.notDone.map((t) => ({ task_id: t.id, status: t.status })),
    issue:
      report.issue === undefined
        ? null
        : {
            ref: report.issue.ref,
            added: report.issue.added,
            removed: report.issue.removed,
            created: report.issue.created,
            warning: report.issue.warning ?? null,
          },
  };
}

/** The text of `plan pr`: the pull request, and the issue's labels. */
export function planPrText(report: PlanPrReport): string {
  const { pr } = report;
  const lines = [`${pr.action} pull request #${pr.number}: ${pr.url}`, `  ${report.branch} → ${pr.base}`];
  if (pr.draft) lines.push("  draft");
  if (report.notDone.length > 0) {
    lines.push(`  not in it (not DONE): ${report.notDone.map((t) => `${t.id} (${t.status})`).join(", ")}`);
  }
  const issue = report.issue;
  if (issue !== undefined && issue.warning === undefined)
    lines.push(`  issue ${issue.ref}: whilly-in-review`);
  return `${lines.join("\n")}\n`;
}
