import type { Logger } from "../ports/index.js";

/** Levels in increasing severity; a logger drops lines below its threshold. */
const LEVELS = ["debug", "info", "warn", "error"] as const;

/**
 * A {@link Logger} writing one JSON object per line: `{"ts", "level", "event", ...fields}`. `event` is
 * a stable dotted name (e.g. `server.listening`, `sweep.released`) for log queries to match on.
 * Errors in fields are reduced to their message; secrets must never be passed as fields.
 * @param out where lines go (the server passes stderr).
 * @param threshold the least severe level written; default `info`.
 */
export function jsonLogger(
  out: { write(text: string): unknown },
  threshold: (typeof LEVELS)[number] = "info",
): Logger {
  const min = LEVELS.indexOf(threshold);
  return (level, event, fields) => {
    if (LEVELS.indexOf(level) < min) return;
    const line = { ts: new Date().toISOString(), level, event, ...fields };
    out.write(`${JSON.stringify(line, (_key, value) => (value instanceof Error ? value.message : value))}\n`);
  };
}
