import { describeWaitingFor, type WaitingFor, type WaitingTask } from "../agents/routing.js";
import { compareIds } from "../dag/compare.js";
import { detectCycles, formatCycle } from "../dag/cycles.js";
import { topologicalDepth } from "../dag/depth.js";
import type { DagTaskWithStatus } from "../dag/graph.js";
import { blockedTasks } from "../dag/readiness.js";
import type { PlanOrigin, TaskWork } from "../model.js";
import type { BlockedTask } from "../ports/task-store.js";
import { type Priority, TASK_STATUSES, type TaskStatus } from "../task-status.js";
import { describeAttempts, describeRetry, type TaskAttempts } from "./task-attempts.js";
import { terminalText } from "./terminal-text.js";

/** Colours a status badge; the CLI passes one that honours `NO_COLOR` and TTY detection. */
export type StatusColor = (status: TaskStatus, text: string) => string;

/** What {@link renderPlanGraph} draws. */
export type PlanGraphInput = {
  readonly planId: string;
  readonly name: string;
  /** Stored tasks (`TaskRecord`) carry the attempt fields and work; plain specs draw without them. */
  readonly tasks: readonly (DagTaskWithStatus & {
    readonly priority: Priority;
    readonly work?: TaskWork | undefined;
  } & Partial<TaskAttempts>)[];
  /** The plan's `max_attempts`, the limit of tasks without their own. */
  readonly maxAttempts?: number | undefined;
  /** Where the plan came from: a `From:` line under the title. */
  readonly origin?: PlanOrigin | undefined;
  /** Tasks waiting on a failed or skipped dependency; computed from `tasks` when left out. */
  readonly blocked?: readonly BlockedTask[] | undefined;
  /** Ready tasks no online worker can run (`TaskStore.listWaiting`); none when left out. */
  readonly waiting?: readonly WaitingTask[] | undefined;
  /** Applied to each `[STATUS     ]` badge; none by default. */
  readonly color?: StatusColor | undefined;
};

/** Digits of a commit id `plan show` prints: git's own default abbreviation. */
const SHORT_COMMIT = 7;

const STATUS_WIDTH = Math.max(...TASK_STATUSES.map((status) => status.length));

/**
 * Draws a plan for `plan show`: a `Cycle detected: …` line per cycle, if any; the
 * title `Plan: <id> — <name>` (and `From: <kind> <reference> — <title> <url>` for a plan that records its
 * origin) over a rule; one line per task, `[STATUS     ] id  (priority)`, ordered by
 * topological depth then id, followed by `  attempts 1/3` once attempted ({@link describeAttempts}) and
 * `  unverified` for a DONE that rests on the agent's word; under it `    └─ depends on: a, b` for
 * in-plan dependencies, `    ⚠ blocked by FAILED T-1` for blocked tasks, `    ⎇ whilly-tasks/p/a @ 0123abc`
 * for a task whose work was reported (its branch and the commit's first {@link SHORT_COMMIT} digits),
 * `    ⏳ waits for a worker with agent codex and tag gpu` for a ready task no online worker can run, and
 * `    ↻ retry not before … · last failure …` after a failed attempt ({@link describeRetry}); and
 * `Summary: N tasks · PENDING=a · DONE=b`
 * listing non-zero counts in status order. Ids and the name are stored text: each stays on its line, with
 * control characters escaped ({@link terminalText}). Pure.
 * @returns the text, each line ending in a newline.
 */
export function renderPlanGraph(input: PlanGraphInput): string {
  const { tasks } = input;
  const paint = input.color ?? ((_status: TaskStatus, text: string) => text);
  const lines: string[] = [];

  const cycles = detectCycles(tasks);
  for (const cycle of cycles) lines.push(`Cycle detected: ${formatCycle(cycle.map(show))}`);
  if (cycles.length > 0) lines.push("");

  const title = `Plan: ${show(input.planId)} — ${show(input.name)}`;
  lines.push(title);
  if (input.origin) lines.push(originLine(input.origin));
  lines.push("─".repeat(Math.max([...title].length, 40)));

  const depth = topologicalDepth(tasks);
  const statusOf = new Map(tasks.map((task) => [task.id, task.status] as const));
  const blockers = new Map((input.blocked ?? blockedTasks(tasks)).map((b) => [b.taskId, b.blockedBy]));
  const waiting = new Map((input.waiting ?? []).map((w) => [w.taskId, w.waitingFor]));
  const ordered = [...tasks].sort(
    (a, b) => (depth.get(a.id) ?? 0) - (depth.get(b.id) ?? 0) || compareIds(a.id, b.id),
  );
  for (const task of ordered) {
    const notes = [describeAttempts(task, input.maxAttempts)];
    if (task.status === "DONE" && task.verification === "unverified") notes.push("unverified");
    const tail = notes.filter((note) => note !== undefined).map((note) => `  ${note}`);
    lines.push(
      `${paint(task.status, `[${task.status.padEnd(STATUS_WIDTH)}]`)} ${show(task.id)}  (${task.priority})${tail.join("")}`,
    );
    lines.push(...detailLines(task, statusOf, blockers.get(task.id) ?? [], waiting.get(task.id)));
  }

  lines.push("", summaryLine(tasks));
  return `${lines.join("\n")}\n`;
}

/** The lines under a task's own: dependencies, blockers, work, retry, what it waits for. */
function detailLines(
  task: PlanGraphInput["tasks"][number],
  statusOf: ReadonlyMap<string, TaskStatus>,
  roots: readonly string[],
  waits: WaitingFor | undefined,
): string[] {
  const lines: string[] = [];
  const deps = [...new Set(task.dependencies.filter((dep) => statusOf.has(dep)))].sort(compareIds);
  if (deps.length > 0) lines.push(`    └─ depends on: ${deps.map(show).join(", ")}`);
  if (roots.length > 0) {
    lines.push(
      `    ⚠ blocked by ${roots.map((id) => `${statusOf.get(id) ?? "missing"} ${show(id)}`).join(", ")}`,
    );
  }
  if (task.work !== undefined) {
    lines.push(`    ⎇ ${show(task.work.branch)} @ ${show(task.work.commit.slice(0, SHORT_COMMIT))}`);
  }
  const retry = describeRetry(task);
  if (retry !== undefined) lines.push(`    ↻ ${retry}`);
  if (waits !== undefined) lines.push(`    ⏳ waits for ${describeWaitingFor(waits)}`);
  return lines;
}

function show(text: string): string {
  return terminalText(text, "line");
}

function originLine(origin: PlanOrigin): string {
  const parts = [`From: ${origin.kind.replace("_", " ")} ${show(origin.reference)}`];
  if (origin.title !== undefined) parts.push(`— ${show(origin.title)}`);
  if (origin.url !== undefined) parts.push(show(origin.url));
  return parts.join(" ");
}

function summaryLine(tasks: readonly { readonly status: TaskStatus }[]): string {
  const parts = [`Summary: ${tasks.length} tasks`];
  for (const status of TASK_STATUSES) {
    const count = tasks.filter((task) => task.status === status).length;
    if (count > 0) parts.push(`${status}=${count}`);
  }
  return parts.join(" · ");
}
