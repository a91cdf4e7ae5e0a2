import { terminalText } from "@whilly/core";
import { Box, Text, useApp, useInput, useStdout } from "ink";
import { useState, useSyncExternalStore } from "react";
import { type ActionName, type DashboardController, describeAction } from "./controller.js";
import { eventText, fit, TASK_COLUMNS, taskCells, workerLine } from "./format.js";
import { budgetText, filterTasks, statusCounts, type TaskRow } from "./model.js";

/** Lines besides the task rows: header, workers, events, filter and status lines. */
const CHROME = 16;
const SHOWN_WORKERS = 4;
const SHOWN_EVENTS = 5;

type Mode = { kind: "normal" } | { kind: "filter" } | { kind: "confirm"; action: ActionName; taskId?: string };

/** The keys, as the footer lists them. */
const KEYS =
  "q quit  r refresh  p pause view  / filter  ↑↓ j k move  x reset FAILED  l release  P pause workers  U resume workers";

/**
 * The full-screen dashboard over a {@link DashboardController}: plan totals, the (filtered) task table
 * with a selection, workers, the latest events, and a status line. `color` false (NO_COLOR, --no-color)
 * renders no colours or inverse text; the selection is marked with `>` either way.
 */
export function DashboardApp({ controller, color }: { controller: DashboardController; color: boolean }) {
  useSyncExternalStore(
    (listener) => controller.subscribe(listener),
    () => controller.snapshotVersion(),
  );
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [mode, setMode] = useState<Mode>({ kind: "normal" });
  const [filter, setFilter] = useState("");
  const [selected, setSelected] = useState(0);
  const state = controller.view();
  const tasks = filterTasks(state.tasks, filter);
  const at = Math.min(selected, Math.max(0, tasks.length - 1));
  const task: TaskRow | undefined = tasks[at];

  useInput((input, key) => {
    if (mode.kind === "confirm") {
      setMode({ kind: "normal" });
      if (input === "y" || input === "Y") void controller.act(mode.action, mode.taskId);
      else controller.say(`${describeAction(mode.action, mode.taskId)}: cancelled`);
      return;
    }
    if (mode.kind === "filter") {
      if (key.escape) {
        setFilter("");
        setMode({ kind: "normal" });
      } else if (key.return) setMode({ kind: "normal" });
      else if (key.backspace || key.delete) setFilter((f) => f.slice(0, -1));
      else if (input && !key.ctrl && !key.meta) setFilter((f) => f + input);
      setSelected(0);
      return;
    }
    if (input === "q") exit();
    else if (input === "r") void controller.refresh();
    else if (input === "p") controller.togglePause();
    else if (input === "/") setMode({ kind: "filter" });
    else if (key.escape) setFilter("");
    else if (key.upArrow || input === "k") setSelected(Math.max(0, at - 1));
    else if (key.downArrow || input === "j") setSelected(Math.min(tasks.length - 1, at + 1));
    else if (input === "x" || input === "l") {
      if (!task) return controller.say("no task selected");
      const action: ActionName = input === "x" ? "reset" : "release";
      setMode({ kind: "confirm", action, taskId: task.id });
    } else if (input === "P") setMode({ kind: "confirm", action: "pauseWorkers" });
    else if (input === "U") setMode({ kind: "confirm", action: "resumeWorkers" });
  });

  const now = Date.now();
  const plan = state.plan;
  const room = Math.max(3, (stdout.rows ?? 40) - CHROME);
  const first = Math.min(Math.max(0, at - room + 1), Math.max(0, tasks.length - room));
  const width = Math.max(60, (stdout.columns ?? 120) - 1);
  const paint = (c: string | undefined): { color?: string } => (color && c ? { color: c } : {});
  const prompt =
    mode.kind === "confirm"
      ? `${describeAction(mode.action, mode.taskId)}? [y/N]`
      : mode.kind === "filter"
        ? `/${filter}_  (Enter keeps, Esc clears)`
        : filter
          ? `filter: ${filter}  (Esc clears)`
          : "";

  return (
    <Box flexDirection="column" width={width}>
      <Text bold>
        whilly dashboard {plan ? terminalText(`${plan.id} (${plan.name})`) : "reading..."}
        {controller.paused ? "  [PAUSED]" : ""}
      </Text>
      <Text>
        {statusCounts(state.tasks)
          .map(([s, n]) => `${s} ${n}`)
          .join("  ")}
        {plan ? `  |  ${budgetText(plan)}` : ""}
      </Text>
      <Text> </Text>
      <Text bold>{`  ${TASK_COLUMNS.map(([name, w]) => fit(name, w)).join("")}`.slice(0, width)}</Text>
      {tasks.slice(first, first + room).map((t, i) => {
        const mine = first + i === at;
        const line = `${mine ? "> " : "  "}${taskCells(t, now)
          .map((cell, j) => fit(cell, TASK_COLUMNS[j]?.[1] ?? 0))
          .join("")}`;
        return (
          <Text key={t.id} inverse={color && mine} {...paint(statusColor(t.status))} wrap="truncate">
            {line}
          </Text>
        );
      })}
      {tasks.length === 0 ? <Text>{filter ? "  no task matches the filter" : "  no tasks"}</Text> : null}
      <Text> </Text>
      <Text bold>workers</Text>
      {state.workers.length === 0 ? <Text> none heard from</Text> : null}
      {state.workers.slice(-SHOWN_WORKERS).map((w) => (
        <Text key={w.id} wrap="truncate">{`  ${workerLine(w, now)}`}</Text>
      ))}
      <Text bold>latest events</Text>
      {state.events.slice(-SHOWN_EVENTS).map((e) => (
        <Text key={e.id} wrap="truncate" {...paint("gray")}>{`  ${eventText(e)}`}</Text>
      ))}
      <Text> </Text>
      <Text {...paint("yellow")}>{terminalText(prompt || controller.status || " ")}</Text>
      <Text dimColor={color} wrap="truncate">
        {KEYS}
      </Text>
    </Box>
  );
}

function statusColor(status: string): string | undefined {
  switch (status) {
    case "DONE":
      return "green";
    case "FAILED":
      return "red";
    case "IN_PROGRESS":
    case "CLAIMED":
      return "cyan";
    default:
      return undefined;
  }
}
