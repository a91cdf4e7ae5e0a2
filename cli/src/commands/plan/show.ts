import {
  type BlockedTask,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  detectCycles,
  effectiveMaxAttempts,
  formatUsd,
  PlanNotFound,
  type PlanRecord,
  renderPlanGraph,
  type StatusColor,
  type TaskRecord,
  type TaskStatus,
  testStepWarnings,
  type WaitingTask,
} from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { painter, printWarning } from "../../io.js";
import { STATUS_STYLE } from "../../output/status-style.js";

/**
 * `whilly plan show <plan_id>`: the DAG with status badges, blocked tasks, DONE tasks marked
 * `unverified` and their work (branch and short commit), attempts (used/max, a retry's not-before time,
 * the last failure), ready tasks no online worker can run and what they wait for, and a summary; warns (stderr) of test steps whilly's checks will not run.
 */
export function showCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "show <plan_id>",
    "Draw a plan's dependency graph with status badges",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("json", {
          type: "boolean",
          default: false,
          describe: "print plan, tasks and blocked tasks as JSON",
        })
        .option("color", {
          type: "boolean",
          default: true,
          describe: "colour the badges (--no-color; NO_COLOR)",
        }),
    async (args) => {
      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const [tasks, blocked, waiting] = await Promise.all([
        store.listTasks(plan.id),
        store.listBlocked(plan.id),
        store.listWaiting(plan.id, { onlineWithinMs: DEFAULT_HEARTBEAT_TIMEOUT_MS }),
      ]);
      for (const message of testStepWarnings(tasks)) printWarning(ctx.io, `plan '${plan.id}': ${message}`);
      if (args.json) {
        ctx.io.out.write(`${JSON.stringify(planShowJson(plan, tasks, blocked, waiting), null, 2)}\n`);
        return;
      }
      const paint = painter(ctx.io.out, ctx.io.env, !args.color);
      const color = (status: TaskStatus, text: string) => paint(STATUS_STYLE[status], text);
      ctx.io.out.write(planShowText(plan, tasks, blocked, color, waiting));
      if (detectCycles(tasks).length > 0) ctx.exitCode = 1;
    },
  );
}

/** The text of `plan show`: {@link renderPlanGraph} with the plan's attempt limit. */
export function planShowText(
  plan: PlanRecord,
  tasks: readonly TaskRecord[],
  blocked: readonly BlockedTask[],
  color?: StatusColor,
  waiting?: readonly WaitingTask[],
): string {
  return renderPlanGraph({
    planId: plan.id,
    name: plan.name,
    tasks,
    blocked,
    waiting,
    color,
    maxAttempts: plan.maxAttempts,
    origin: plan.origin,
  });
}

/**
 * The JSON of `plan show --json`: the plan (budget and spend in USD, `verify`, `setup`, its own
 * `max_attempts` or null, `github_issue_ref` and `origin` or null), every task (attempts used, its effective `max_attempts`, `verification`
 * null unless DONE, `branch` and full `commit` of its work or null, a retry's `not_before` as ISO text or
 * null, `last_failure` as stored or null, `agent`, `model` and `required_tags` as the task names them,
 * `waiting_for` `{agent?, tags}` or null) and the blocked tasks.
 */
export function planShowJson(
  plan: PlanRecord,
  tasks: readonly TaskRecord[],
  blocked: readonly BlockedTask[],
  waiting: readonly WaitingTask[] = [],
) {
  const waitingFor = new Map(waiting.map((w) => [w.taskId, w.waitingFor]));
  return {
    plan: {
      id: plan.id,
      name: plan.name,
      budget_usd: plan.budgetMicroUsd === undefined ? null : formatUsd(plan.budgetMicroUsd),
      spent_usd: formatUsd(plan.spentMicroUsd),
      task_count: tasks.length,
      verify: plan.verify ?? [],
      setup: plan.setup ?? null,
      max_attempts: plan.maxAttempts ?? null,
      agent: plan.agent ?? null,
      model: plan.model ?? null,
      fallback_agents: plan.fallbackAgents ?? [],
      github_issue_ref: plan.githubIssueRef ?? null,
      origin: plan.origin ?? null,
    },
    tasks: tasks.map((t) => ({
      id: t.id,
      status: t.status,
      priority: t.priority,
      dependencies: t.dependencies,
      attempts: t.attempts,
      max_attempts: effectiveMaxAttempts(t.maxAttempts, plan.maxAttempts),
      verification: t.verification ?? null,
      branch: t.work?.branch ?? null,
      commit: t.work?.commit ?? null,
      not_before: t.notBefore?.toISOString() ?? null,
      last_failure: t.lastFailure ?? null,
      cost_usd: formatUsd(t.spentMicroUsd),
      agent: t.agent ?? null,
      model: t.model ?? null,
      required_tags: t.requiredTags ?? [],
      waiting_for: waitingFor.get(t.id) ?? null,
    })),
    blocked: blocked.map((b) => ({ task_id: b.taskId, blocked_by: b.blockedBy })),
  };
}
