import { terminalText } from "@whilly/core";
import { Box, type Key as InkKey, Text, useApp, useInput, useStdout } from "ink";
import { useRef, useState, useSyncExternalStore } from "react";
import { type DashboardController, describeAction } from "./controller.js";
import { budgetText, eventText, headerLine, taskCells, taskColumns, taskLine, workerLine } from "./format.js";
import { type Effect, type Key, type Mode, pressKey, START_UI } from "./keys.js";
import { filterTasks, statusCounts, WORKERS_PAUSED } from "./model.js";

/** Lines besides the task rows: header, workers, events, filter and status lines. */
const CHROME = 16;
const SHOWN_WORKERS = 4;
const SHOWN_EVENTS = 5;

/** The keys, as the footer lists them. */
const KEYS =
  "q quit  r refresh  p pause view  / filter  ↑↓ j k move  x reset FAILED  l release  P pause workers  U resume workers";

/**
 * The full-screen dashboard over a {@link DashboardController}: plan totals, the (filtered) task table
 * with a selection, workers, the latest events, and a status line. `color` false (NO_COLOR, --no-color)
 * renders no colours or inverse text; the selection is marked with `>` either way. Ctrl-C calls
 * `onInterrupt`, then quits.
 */
export function DashboardApp({
  controller,
  color,
  onInterrupt,
}: {
  controller: DashboardController;
  color: boolean;
  onInterrupt: () => void;
}) {
  useSyncExternalStore(
    (listener) => controller.subscribe(listener),
    () => controller.snapshotVersion(),
  );
  const { exit } = useApp();
  const { stdout } = useStdout();
  const ui = useRef(START_UI);
  const [, redraw] = useState(0);
  const state = controller.view();
  const visibleFor = (filter: string) => filterTasks(controller.view().tasks, filter);

  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      onInterrupt();
      exit();
      return;
    }
    let next = ui.current;
    for (const pressed of keysOf(input, key)) {
      const { ui: after, effect } = pressKey(next, pressed, visibleFor);
      next = after;
      if (effect?.kind === "quit") exit();
      else if (effect) runEffect(controller, effect);
    }
    ui.current = next;
    redraw((n) => n + 1);
  });

  const { mode, filter } = ui.current;
  const tasks = filterTasks(state.tasks, filter);
  const at = Math.min(ui.current.selected, Math.max(0, tasks.length - 1));
  const now = controller.viewTime();
  const plan = state.plan;
  const room = Math.max(3, (stdout.rows ?? 40) - CHROME);
  const first = Math.min(Math.max(0, at - room + 1), Math.max(0, tasks.length - room));
  const width = Math.max(60, (stdout.columns ?? 120) - 1);
  const paint = (c: string | undefined): { color?: string } => (color && c ? { color: c } : {});
  const prompt = promptLine(mode, filter, controller.status);
  // The row's columns after the selection mark, sized over every task so a filter does not move them.
  const columns = taskColumns(state.tasks, width - 2);

  return (
    <Box flexDirection="column" width={width}>
      <Text bold>
        whilly dashboard {plan ? terminalText(`${plan.id} (${plan.name})`) : "reading..."}
        {controller.paused ? "  [PAUSED]" : ""}
        {state.workersPaused ? `  ${WORKERS_PAUSED}` : ""}
      </Text>
      <Text>
        {statusCounts(state.tasks)
          .map(([s, n]) => `${s} ${n}`)
          .join("  ")}
        {plan ? `  |  ${budgetText(plan)}` : ""}
      </Text>
      <Text> </Text>
      <Text bold>{`  ${headerLine(columns)}`.slice(0, width)}</Text>
      {tasks.slice(first, first + room).map((t, i) => {
        const mine = first + i === at;
        const line = `${mine ? "> " : "  "}${taskLine(taskCells(t, now), columns)}`;
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
      <Text {...paint("yellow")}>{terminalText(prompt)}</Text>
      <Text dimColor={color} wrap="truncate">
        {KEYS}
      </Text>
    </Box>
  );
}

/** The line above the keys: the y/N question, the filter being typed, or the status (after a kept filter). */
function promptLine(mode: Mode, filter: string, status: string): string {
  if (mode.kind === "confirm") return `${describeAction(mode.action, mode.taskId)}? [y/N]`;
  if (mode.kind === "filter") return `/${filter}_  (Enter keeps, Esc clears)`;
  if (filter) return `filter: ${filter}  (Esc clears)${status ? `  |  ${status}` : ""}`;
  return status || " ";
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

/** The keys in one read of the terminal (several when typed fast or pasted). */
function keysOf(input: string, key: InkKey): Key[] {
  if (key.upArrow) return ["up"];
  if (key.downArrow) return ["down"];
  if (key.escape) return ["escape"];
  if (key.return) return ["return"];
  if (key.backspace || key.delete) return ["backspace"];
  if (key.ctrl || key.meta) return [];
  return [...input];
}

function runEffect(controller: DashboardController, effect: Exclude<Effect, { kind: "quit" }>): void {
  if (effect.kind === "refresh") void controller.refresh();
  else if (effect.kind === "togglePause") controller.togglePause();
  else if (effect.kind === "act") void controller.act(effect.action, effect.taskId);
  else if (effect.kind === "cancelled") {
    const how = effect.by === undefined ? "" : " (only y confirms)";
    controller.say(`${describeAction(effect.action, effect.taskId)}: cancelled${how}`);
  } else controller.say(effect.text);
}
