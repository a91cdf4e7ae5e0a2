import type { Logger } from "../app/deps.js";

/**
 * The Worker's structured log: one JSON line per entry on the console, which Workers Logs and
 * `wrangler tail` collect. Fields carry ids, never secrets.
 */
export const log: Logger = (level, event, fields) => {
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
};
