// Small numeric and formatting helpers for the bench report.
import { readFileSync } from "node:fs";

/**
 * The `p`-th percentile (0-100) of `values` by the nearest-rank method.
 * @param {number[]} values @param {number} p
 * @returns {number | undefined} undefined for no values.
 */
export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * A number for a table cell: `digits` decimals, thousands grouped; "-" for nothing.
 * @param {number | undefined | null} value @param {number} [digits]
 */
export function fmt(value, digits = 0) {
  if (value === undefined || value === null || !Number.isFinite(value)) return "-";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * A markdown table.
 * @param {string[]} header @param {Array<Array<string | number>>} rows
 */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.map((cell) => String(cell)).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The 1, 5 and 15 minute load averages, e.g. "1.93 2.10 2.40". */
export function loadAverage() {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** @param {number} ms */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds of a monotonic clock. */
export function now() {
  return performance.now();
}
