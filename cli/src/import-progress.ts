import type { ImportOptions } from "@whilly/core";
import type { Io } from "./io.js";

/** Plans with fewer new tasks than this import in about a second: no progress lines for them. */
export const IMPORT_PROGRESS_MIN_TASKS = 2_000;
/** A progress line at most this often (ms), so a huge import prints a few lines, not thousands. */
const EVERY_MS = 1_000;

/**
 * Progress lines on stderr while a large plan's new tasks are written, e.g.
 * `whilly: importing plan 'big': 12,000/50,000 new tasks stored`: at most one a second, and a
 * last one when every task is stored. Nothing for plans under {@link IMPORT_PROGRESS_MIN_TASKS} new
 * tasks. `now` is injectable for tests (ms).
 */
export function importProgress(io: Io, planId: string, now: () => number = Date.now): ImportOptions {
  let last = now();
  return {
    onProgress: (stored, total) => {
      if (total < IMPORT_PROGRESS_MIN_TASKS) return;
      const done = stored >= total;
      if (!done && now() - last < EVERY_MS) return;
      last = now();
      const count = (n: number) => n.toLocaleString("en-US");
      io.err.write(`whilly: importing plan '${planId}': ${count(stored)}/${count(total)} new tasks stored\n`);
    },
  };
}
