import { displayUsd, terminalText } from "@whilly/core";
import type { EventView } from "../events/event-view.js";
import { eventLine } from "../events/event-view.js";
import {
  type DashboardSnapshot,
  type DashboardState,
  type TaskProgress,
  type TaskRow,
  taskSpend,
} from "./model.js";

/** The task table's columns: header and width (the last takes what is left); WORKER's is the least. */
export const TASK_COLUMNS = [
  ["ID", 14],
  ["STATUS", 12],
  ["WORKER", 14],
  ["ATT", 4],
  ["ELAPSED", 8],
  ["COST", 10],
  ["STEP", 22],
  ["DESCRIPTION", 0],
] as const;

/** One column of the task table: header and width (0: what is left). */
export type Column = readonly [name: string, width: number];

/** The columns the description keeps at least when the WORKER column widens. */
const MIN_DESCRIPTION = 20;

/**
 * {@link TASK_COLUMNS} with WORKER as wide as the longest worker id among `tasks` (worker ids such as
 * `local-<host>-<pid>` are long), but no wider than leaves the description {@link MIN_DESCRIPTION}
 * columns of `width` (the row's columns; none: no limit). A longer id is cut in its middle
 * ({@link fitMiddle}).
 */
export function taskColumns(tasks: readonly { claimedBy: string | null }[], width?: number): Column[] {
  const longest = Math.max(0, ...tasks.map((t) => terminalText(t.claimedBy ?? "", "line").length));
  const others = TASK_COLUMNS.reduce((sum, [name, w]) => (name === "WORKER" ? sum : sum + w), 0);
  const room = width === undefined ? Number.POSITIVE_INFINITY : width - others - MIN_DESCRIPTION;
  return TASK_COLUMNS.map(([name, w]): Column => {
    if (name !== "WORKER") return [name, w];
    return [name, Math.max(w, Math.min(longest + 1, room))];
  });
}

/** The table's header line for `columns`. */
export function headerLine(columns: readonly Column[]): string {
  return columns.map(([name, width]) => fit(name, width)).join("");
}

/** A task's line from its {@link taskCells}: the worker cut in its middle when it must be cut. */
export function taskLine(cells: readonly string[], columns: readonly Column[]): string {
  return cells
    .map((cell, i) => {
      const [name, width] = columns[i] ?? ["", 0];
      return name === "WORKER" ? fitMiddle(cell, width) : fit(cell, width);
    })
    .join("");
}

/** A duration (ms) as `45s`, `3m05s` or `2h03m`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** The agent's current step: phase, last tool and turns, e.g. `agent Edit t12`. */
export function stepText(progress: TaskProgress | undefined): string {
  if (!progress) return "";
  const parts = [
    progress.phase,
    progress.last_tool,
    progress.turns === undefined ? undefined : `t${progress.turns}`,
  ];
  return parts.filter((p) => p !== undefined && p !== "").join(" ");
}

/** A task's cells, in {@link TASK_COLUMNS} order, made safe for a terminal (untrusted text escaped). */
export function taskCells(task: TaskRow, now: number): string[] {
  const running = task.status === "CLAIMED" || task.status === "IN_PROGRESS";
  const since = running && task.claimedAt ? Date.parse(task.claimedAt) : Number.NaN;
  const spend = taskSpend(task);
  return [
    task.id,
    task.status,
    task.claimedBy ?? "-",
    String(task.attempts),
    Number.isNaN(since) ? "-" : duration(now - since),
    spend > 0 ? displayUsd(spend) : "-",
    running ? stepText(task.progress) || "-" : "-",
    task.description.split("\n")[0] ?? "",
  ].map((cell) => terminalText(cell, "line"));
}

/** Pads or cuts `text` to `width` columns (`…` marks a cut); width 0 leaves it whole. */
export function fit(text: string, width: number): string {
  if (width === 0) return text;
  return text.length > width - 1 ? `${text.slice(0, width - 2)}… ` : text.padEnd(width);
}

/**
 * Pads or cuts `text` to `width` columns, cutting in the middle (`…`) and keeping its end: the pid of
 * `local-<host>-<pid>`, the part that tells two workers of one host apart.
 */
export function fitMiddle(text: string, width: number): string {
  const room = width - 1;
  if (width === 0 || text.length <= room) return fit(text, width);
  const dash = text.lastIndexOf("-");
  const end =
    dash > 0 && text.length - dash <= Math.floor(room / 2) ? text.length - dash : Math.floor(room / 2);
  return `${text.slice(0, room - 1 - end)}…${text.slice(text.length - end)} `;
}

/** A worker's line: `w-1  T-2  heartbeat 3s ago` (escaped). */
export function workerLine(worker: DashboardState["workers"][number], now: number): string {
  const age = duration(now - Date.parse(worker.lastSeen));
  return terminalText(`${worker.id}  ${worker.task ?? "idle"}  heard ${age} ago`, "line");
}

/** An event's line as `whilly events` prints it (escaped). */
export function eventText(event: EventView): string {
  return terminalText(eventLine(event), "line");
}

/** `$spent of $budget spent, $left left`, or `$spent spent (no budget)`. */
export function budgetText(plan: DashboardSnapshot["plan"]): string {
  const spent = displayUsd(plan.spentMicroUsd);
  if (plan.budgetMicroUsd === null) return `${spent} spent (no budget)`;
  const left = Math.max(0, plan.budgetMicroUsd - plan.spentMicroUsd);
  return `${spent} of ${displayUsd(plan.budgetMicroUsd)} spent, ${displayUsd(left)} left`;
}
