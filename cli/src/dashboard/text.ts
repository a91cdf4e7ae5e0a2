import { terminalText } from "@whilly/core";
import { budgetText, eventText, headerLine, taskCells, taskColumns, taskLine, workerLine } from "./format.js";
import { type DashboardState, statusCounts, WORKERS_PAUSED } from "./model.js";

/** How many of the latest events a text snapshot lists. */
const TEXT_EVENTS = 10;

/**
 * The dashboard as plain text, for a stdout that is not a terminal: the plan and its budget, the
 * status counts, one line per task, the workers and the latest events. No escape codes; untrusted
 * text is escaped.
 * @param now the clock (ms since the epoch) elapsed times and heartbeat ages are measured to.
 */
export function dashboardText(state: DashboardState, now: number, status = ""): string {
  const plan = state.plan;
  if (!plan) return "reading...\n";
  const columns = taskColumns(state.tasks);
  const lines = [
    `plan ${terminalText(plan.id)} (${terminalText(plan.name)})  ${new Date(now).toISOString().replace(/\.\d+Z$/, "Z")}${state.workersPaused ? `  ${WORKERS_PAUSED}` : ""}`,
    `tasks ${state.tasks.length}: ${statusCounts(state.tasks)
      .map(([s, n]) => `${s} ${n}`)
      .join("  ")}  |  ${budgetText(plan)}`,
    "",
    headerLine(columns).trimEnd(),
    ...state.tasks.map((task) => taskLine(taskCells(task, now), columns).trimEnd()),
    "",
    `workers: ${state.workers.length === 0 ? "none heard from" : ""}`,
    ...state.workers.map((w) => `  ${workerLine(w, now)}`),
    "",
    "latest events:",
    ...state.events.slice(-TEXT_EVENTS).map((e) => `  ${eventText(e)}`),
  ];
  if (status) lines.push("", terminalText(status));
  return `${lines.join("\n")}\n`;
}
