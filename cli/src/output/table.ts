import { terminalText } from "@whilly/core";
import { visibleLength } from "../io.js";

/**
 * Renders rows as a left-aligned text table with a header and two spaces between columns. A cell
 * stays on its row: line feeds and other control characters in it are shown escaped. Widths count
 * UTF-16 code units leaving out the painter's colours, which is exact for the ids and badges whilly
 * prints and close enough for wide characters.
 */
export function renderTable(header: readonly string[], cellRows: readonly (readonly string[])[]): string {
  const rows = cellRows.map((row) => row.map((cell) => terminalText(cell, "line")));
  const widths = header.map((h, i) =>
    Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ""))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)),
      )
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}

/** Formats a duration in ms for people: `850ms`, `12.3s`, `4m05s`, `1h02m`. */
export function displayDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600)
    return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, "0")}s`;
  const minutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}
