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
  | { readonly kind: "cancelled"; readonly action: ActionName; readonly taskId?: string | undefined }
  | { readonly kind: "say"; readonly text: string };

/**
 * Applies one key. `visible` gives the ids of the tasks a filter keeps, in order. Keys: `q` quit,
 * `r` refresh, `p` pause the view, `/` filter (Enter keeps, Esc clears), up/down and `k`/`j` move, `x`
 * reset the selected task, `l` release it, `P` pause and `U` resume all workers; an action first asks
 * y/N, and only `y` runs it.
 */
export function pressKey(
  ui: UiState,
  key: Key,
  visibleFor: (filter: string) => readonly string[],
): { ui: UiState; effect?: Effect } {
  const visible = visibleFor(ui.filter);
  const at = Math.min(ui.selected, Math.max(0, visible.length - 1));
  const { mode } = ui;
  if (mode.kind === "confirm") {
    const back = { ...ui, mode: { kind: "normal" } as const };
    const which = { action: mode.action, taskId: mode.taskId };
    return {
      ui: back,
      effect: key === "y" || key === "Y" ? { kind: "act", ...which } : { kind: "cancelled", ...which },
    };
  }
  if (mode.kind === "filter") {
    if (key === "escape") return { ui: { ...ui, mode: { kind: "normal" }, filter: "", selected: 0 } };
    if (key === "return") return { ui: { ...ui, mode: { kind: "normal" } } };
    if (key === "backspace") return { ui: { ...ui, filter: ui.filter.slice(0, -1), selected: 0 } };
    if (key.length === 1) return { ui: { ...ui, filter: ui.filter + key, selected: 0 } };
    return { ui };
  }
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
    case "l": {
      const taskId = visible[at];
      if (taskId === undefined) return { ui, effect: { kind: "say", text: "no task selected" } };
      return { ui: { ...ui, mode: { kind: "confirm", action: key === "x" ? "reset" : "release", taskId } } };
    }
    case "P":
      return { ui: { ...ui, mode: { kind: "confirm", action: "pauseWorkers" } } };
    case "U":
      return { ui: { ...ui, mode: { kind: "confirm", action: "resumeWorkers" } } };
    default:
      return { ui };
  }
}
