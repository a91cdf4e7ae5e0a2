/**
 * Renders rows as a left-aligned text table with a header and two spaces between columns.
 * Widths count UTF-16 code units after stripping ANSI colour, which is exact for the ids and
 * badges whilly prints and close enough for wide characters.
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visible(cell))))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
const ANSI = /\u001b\[[0-9;]*m/g;

function visible(text: string): number {
  return text.replace(ANSI, "").length;
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
