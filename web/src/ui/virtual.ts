/** The rows a virtual list renders: `[start, end)`, and the blank space above them in px. */
export interface RowWindow {
  start: number;
  end: number;
  top: number;
}

/**
 * Which of `count` rows of `rowHeight` px to render in a viewport `height` px tall scrolled to
 * `scrollTop`, with `overscan` rows beyond each edge so fast scrolls do not flash blank.
 */
export function rowWindow(
  scrollTop: number,
  height: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): RowWindow {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, top: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, Math.min(count - 1, first) - overscan);
  const visible = Math.ceil(Math.max(0, height) / rowHeight) + 1;
  const end = Math.min(count, first + visible + overscan);
  return { start, end: Math.max(start, end), top: start * rowHeight };
}
