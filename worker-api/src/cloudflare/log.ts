import { redactSecrets } from "@whilly/core";
import type { Logger } from "../ports/index.js";

/**
 * The Worker's structured log: one JSON line per entry on the console, which Workers Logs and
 * `wrangler tail` collect. Fields carry ids, never secrets; a message that quotes one anyway (a
 * driver's error naming a URL) is redacted of the well-known token shapes.
 */
export const log: Logger = (level, event, fields) => {
  const line = redactSecrets(JSON.stringify({ level, event, ...fields }));
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
};
