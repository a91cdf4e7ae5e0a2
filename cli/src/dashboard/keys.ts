import type { ActionName } from "./controller.js";

/** What the operator is doing: browsing, typing a filter, or answering a y/N question. */
export type Mode =
  | { readonly kind: "normal" }
  | { readonly kind: "filter" }
  | { readonly kind: "confirm"; readonly action: ActionName; readonly taskId?: string | undefined };

/** The view's own state: the mode, the task filter and the selected row (an index into the filtered tasks). */
export type UiState = { readonly mode: Mode; readonly filter: string; readonly selected: number };

/** The view before any key. */
export const START_UI: UiState = { mode: { kind: "normal" }, filter: "", selected: 0 };

/** One key: a character, or a named key Ink reports. */
export type Key = string | "up" | "down" | "escape" | "return" | "backspace";

/** What a key asks of the dashboard beyond the view's own state. */
export type Effect =
  | { readonly kind: "quit" }
  | { readonly kind: "refresh" }
  | { readonly kind: "togglePause" }
  | { readonly kind: "act"; readonly action: ActionName; readonly taskId?: string | undefined }
  | {
      readonly kind: "cancelled";
      readonly action: ActionName;
      readonly taskId?: string | undefined;
      /** The key that answered, when not `n` or Esc (the status line says only `y` confirms). */
      readonly by?: string;
    }
  | { readonly kind: "say"; readonly text: string };

/** A task as the keys need it: its id, and its status to refuse an action it cannot take. */
export type KeyTask = { readonly id: string; readonly status: string };

/** What each task action needs of the task's status, and the words that say so. */
const NEEDS = {
  reset: { statuses: ["FAILED"], words: "a FAILED task can be reset" },
  release: { statuses: ["CLAIMED", "IN_PROGRESS"], words: "a CLAIMED or IN_PROGRESS task can be released" },
} as const;

/**
 * Applies one key. `visibleFor` gives the tasks a filter keeps, in order. Keys: `q` quit,
 * `r` refresh, `p` pause the view, `/` filter (Enter keeps, Esc clears), up/down and `k`/`j` move, `x`
 * reset the selected task, `l` release it, `P` pause and `U` resume all workers; an action first asks
 * y/N, and only `y` runs it (any other key cancels it, saying so). An action the selected task's status
 * can only refuse is refused at once, without the question.
 */
export function pressKey(
  ui: UiState,
  key: Key,
  visibleFor: (filter: string) => readonly KeyTask[],
): { ui: UiState; effect?: Effect } {
  const visible = visibleFor(ui.filter);
  const at = Math.min(ui.selected, Math.max(0, visible.length - 1));
  const { mode } = ui;
  if (mode.kind === "confirm") return answer(ui, mode, key);
  if (mode.kind === "filter") return typeFilter(ui, key);
  switch (key) {
    case "q":
      return { ui, effect: { kind: "quit" } };
    case "r":
      return { ui, effect: { kind: "refresh" } };
    case "p":
      return { ui, effect: { kind: "togglePause" } };
    case "/":
      return { ui: { ...ui, mode: { kind: "filter" } } };
    case "escape":
      return { ui: { ...ui, filter: "", selected: 0 } };
    case "up":
    case "k":
      return { ui: { ...ui, selected: Math.max(0, at - 1) } };
    case "down":
    case "j":
      return { ui: { ...ui, selected: Math.max(0, Math.min(visible.length - 1, at + 1)) } };
    case "x":
      return ask(ui, "reset", visible[at]);
    case "l":
      return ask(ui, "release", visible[at]);
    case "P":
      return { ui: { ...ui, mode: { kind: "confirm", action: "pauseWorkers" } } };
    case "U":
      return { ui: { ...ui, mode: { kind: "confirm", action: "resumeWorkers" } } };
    default:
      return { ui };
  }
}

/** The answer to a y/N question: only `y` runs the action. */
function answer(
  ui: UiState,
  mode: Extract<Mode, { kind: "confirm" }>,
  key: Key,
): { ui: UiState; effect: Effect } {
  const back = { ...ui, mode: { kind: "normal" } as const };
  const which = { action: mode.action, taskId: mode.taskId };
  if (key === "y" || key === "Y") return { ui: back, effect: { kind: "act", ...which } };
  const quiet = key === "n" || key === "N" || key === "escape";
  return { ui: back, effect: { kind: "cancelled", ...which, ...(quiet ? {} : { by: key }) } };
}

/** A key while the filter is typed. */
function typeFilter(ui: UiState, key: Key): { ui: UiState } {
  if (key === "escape") return { ui: { ...ui, mode: { kind: "normal" }, filter: "", selected: 0 } };
  if (key === "return") return { ui: { ...ui, mode: { kind: "normal" } } };
  if (key === "backspace") return { ui: { ...ui, filter: ui.filter.slice(0, -1), selected: 0 } };
  if (key.length === 1) return { ui: { ...ui, filter: ui.filter + key, selected: 0 } };
  return { ui };
}

/** Asks to run a task action, or says at once why the task's status refuses it. */
function ask(
  ui: UiState,
  action: keyof typeof NEEDS,
  task: KeyTask | undefined,
): { ui: UiState; effect?: Effect } {
  if (task === undefined) return { ui, effect: { kind: "say", text: "no task selected" } };
  const needs = NEEDS[action];
  if (!(needs.statuses as readonly string[]).includes(task.status)) {
    return { ui, effect: { kind: "say", text: `${task.id} is ${task.status}; only ${needs.words}` } };
  }
  return { ui: { ...ui, mode: { kind: "confirm", action, taskId: task.id } } };
}
