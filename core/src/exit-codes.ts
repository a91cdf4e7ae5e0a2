/**
 * The exit codes of both CLIs, `whilly` and `whilly-worker` (docs/cli.md#exit-codes, docs/worker.md):
 * 0 ok, 1 the operation failed, 2 usage or configuration (including a missing plan), 75 the only work
 * left waits on a provider limit or a retry's backoff (`whilly run --no-wait`; EX_TEMPFAIL: run again
 * later), 130 interrupted.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 75, interrupted: 130 } as const;
