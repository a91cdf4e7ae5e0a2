import type { Logger } from "../ports/index.js";

/** The line logged the first time the deprecated shared token is used. */
export const LEGACY_TOKEN_WARNING =
  "WHILLY_WORKER_TOKEN is deprecated; use per-worker tokens (whilly worker register). Suppress: WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1";

/**
 * Whether this process (or Workers isolate) has warned already. Module state on purpose: a runtime may
 * build its auth per request, and the warning is meant once per process, not once per request.
 */
let warned = false;

/** Logs {@link LEGACY_TOKEN_WARNING} once per process, unless suppressed. */
export function warnLegacyTokenOnce(log: Logger | undefined, suppressed: boolean): void {
  if (suppressed || warned) return;
  warned = true;
  log?.("warn", "auth.legacy_worker_token", { message: LEGACY_TOKEN_WARNING });
}
