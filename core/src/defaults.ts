/**
 * Defaults that more than one entry point applies (`whilly run`, `whilly server`, `whilly-worker`, the
 * Workers runtime), kept here so they cannot drift apart. docs/cli.md and docs/worker.md list them.
 */

/** Lease of a claim, the visibility timeout (`WHILLY_VISIBILITY_TIMEOUT`): 15 minutes, in ms. */
export const DEFAULT_LEASE_MS = 900_000;

/** Heartbeat period (`WHILLY_HEARTBEAT_INTERVAL`): 30 s, in ms; well inside the default lease. */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 30_000;

/**
 * Silence after which a worker is offline (`WHILLY_HEARTBEAT_TIMEOUT`): 120 s, in ms. Only workers heard
 * from within it count when a ready task is reported as waiting for a capability.
 */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 120_000;

/**
 * Period of the "still running" and "waiting" lines (`WHILLY_PROGRESS_INTERVAL`): 30 s, in ms. Someone
 * watching learns within half a minute that a task is alive, and a 30-minute task adds 60 lines to a log.
 */
export const DEFAULT_PROGRESS_INTERVAL_MS = 30_000;

/** Per-task limit on the agent (`--task-timeout`), as the flag is written: 30 minutes. */
export const DEFAULT_TASK_TIMEOUT = "30m";

/** Per-task limit on whilly's own checks (`--verify-timeout`), as the flag is written: 10 minutes. */
export const DEFAULT_VERIFY_TIMEOUT = "10m";

/** An attempt whose agent printed no event for this long ends `stalled` (`--stall-timeout`): 10 minutes. */
export const DEFAULT_STALL_TIMEOUT = "10m";

/** First pause before a failed task's retry (`WHILLY_RETRY_BACKOFF`): 30 s, in ms; doubled per attempt. */
export const DEFAULT_RETRY_BACKOFF_MS = 30_000;

/** Longest pause before a retry (`WHILLY_RETRY_BACKOFF_MAX`): 10 minutes, in ms. */
export const DEFAULT_RETRY_BACKOFF_MAX_MS = 600_000;

/** First pause after a provider limit that named no reset time (`WHILLY_LIMIT_BACKOFF`): 60 s, in ms. */
export const DEFAULT_LIMIT_BACKOFF_MS = 60_000;

/** Longest pause after a provider limit (`WHILLY_LIMIT_BACKOFF_MAX`), with or without a reset time: 6 h, in ms. */
export const DEFAULT_LIMIT_BACKOFF_MAX_MS = 21_600_000;
