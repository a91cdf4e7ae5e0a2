import { displayUsd, type PlanRecord, type TaskRecord } from "@whilly/core";
import type { IssueRef } from "../github/labels.js";
import { integrationQueue } from "../integrate/order.js";

/** GitHub refuses a pull request body over 65,536 characters: rows past this are summed up in one line. */
const MAX_BODY = 60_000;

/** What the pull request of a plan says. */
export type PrText = { readonly title: string; readonly body: string };

/** Inputs of {@link prText}. */
export type PrTextInput = {
  readonly plan: PlanRecord;
  readonly tasks: readonly TaskRecord[];
  readonly branch: string;
  /** The forge issue the plan came from: the body closes it. */
  readonly issue: IssueRef | undefined;
};

/**
 * The title (`whilly: <plan name>`, with `(k of n tasks)` when not every task is DONE) and the body:
 * a table of every task (DONE ones in merge order, then the others) with its status, cost over all its
 * attempts, verification and the commit of its work, the total cost, and `Closes #N` for a forge plan.
 * Deterministic, so a rerun that changed nothing writes the same body.
 */
export function prText(input: PrTextInput): PrText {
  const { plan, tasks, branch, issue } = input;
  const queue = integrationQueue(tasks);
  const done = queue.done.length;
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const ordered = [...queue.done.map((q) => q.id), ...queue.notDone.map((n) => n.id)].flatMap((id) => {
    const task = byId.get(id);
    return task === undefined ? [] : [task];
  });
  const all = done === tasks.length;
  const title = `whilly: ${plan.name}${all ? "" : ` (${done} of ${tasks.length} tasks)`}`;
  const total = tasks.reduce((sum, t) => sum + t.spentMicroUsd, 0);
  const head = [
    `<!-- whilly plan ${cell(plan.id)} -->`,
    `Plan \`${plan.id}\` (${plan.name}): ${all ? `all ${tasks.length} tasks DONE` : `${done} of ${tasks.length} tasks DONE; only their work is in this branch`}. The branch \`${branch}\` holds each DONE task's work, merged by \`whilly plan integrate\`.`,
    "",
    "| task | status | cost | verification | commit |",
    "| ---- | ------ | ---- | ------------ | ------ |",
  ];
  const tail = [
    "",
    `Total cost: ${displayUsd(total)} over ${tasks.reduce((n, t) => n + t.attempts, 0)} attempts.`,
    ...(issue === undefined ? [] : ["", `Closes #${issue.number}`]),
  ];
  const rows = ordered.map(row);
  let size = [...head, ...tail].join("\n").length + 200;
  const shown: string[] = [];
  for (const line of rows) {
    size += line.length + 1;
    if (size > MAX_BODY) break;
    shown.push(line);
  }
  if (shown.length < rows.length) {
    shown.push(`| … | ${rows.length - shown.length} more tasks: \`whilly plan show ${plan.id}\` | | | |`);
  }
  return { title, body: `${[...head, ...shown, ...tail].join("\n")}\n` };
}

function row(task: TaskRecord): string {
  const isDone = task.status === "DONE";
  const verification = isDone ? (task.verification ?? "unverified") : "—";
  const work = task.work;
  const commit = work === undefined ? "—" : `${work.commit.slice(0, 12)} (\`${cell(work.branch)}\`)`;
  return `| ${cell(task.id)} | ${task.status} | ${displayUsd(task.spentMicroUsd)} | ${verification} | ${commit} |`;
}

/** Text safe in a table cell: no pipe, no line break. */
function cell(text: string): string {
  return text.replace(/[|\r\n]/g, (c) => (c === "|" ? "\\|" : " "));
}
