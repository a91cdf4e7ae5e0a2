/**
 * The exit codes of both CLIs, `whilly` and `whilly-worker` (docs/cli.md#exit-codes, docs/worker.md):
 * 0 ok, 1 the operation failed, 2 usage or configuration (including a missing plan), 130 interrupted.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;
