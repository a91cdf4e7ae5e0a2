import { terminalText } from "@whilly/core";
import type { EventView } from "../events/event-view.js";
import { eventLine } from "../events/event-view.js";
import {
  type DashboardSnapshot,
  type DashboardState,
  type TaskProgress,
  type TaskRow,
  taskSpend,
} from "./model.js";

/** The task table's columns: header and width (the last takes what is left). */
export const TASK_COLUMNS = [
  ["ID", 14],
  ["STATUS", 12],
  ["WORKER", 14],
  ["ATT", 4],
  ["ELAPSED", 8],
  ["COST", 8],
  ["STEP", 22],
  ["DESCRIPTION", 0],
] as const;

/** USD from micro-USD, to the cent (to the hundredth of a cent below one cent). */
export function usd(micro: number): string {
  return micro > 0 && micro < 10_000 ? `$${(micro / 1e6).toFixed(4)}` : `$${(micro / 1e6).toFixed(2)}`;
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
    spend > 0 ? usd(spend) : "-",
    running ? stepText(task.progress) || "-" : "-",
    task.description.split("\n")[0] ?? "",
  ].map((cell) => terminalText(cell, "line"));
}

/** Pads or cuts `text` to `width` columns (`…` marks a cut); width 0 leaves it whole. */
export function fit(text: string, width: number): string {
  if (width === 0) return text;
  return text.length > width - 1 ? `${text.slice(0, width - 2)}… ` : text.padEnd(width);
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
  const spent = usd(plan.spentMicroUsd);
  if (plan.budgetMicroUsd === null) return `${spent} spent (no budget)`;
  const left = Math.max(0, plan.budgetMicroUsd - plan.spentMicroUsd);
  return `${spent} of ${usd(plan.budgetMicroUsd)} spent, ${usd(left)} left`;
}
