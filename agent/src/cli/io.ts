/** A writable text stream, as `process.stderr` is. */
export type WorkerOut = { write(text: string): unknown };

/**
 * whilly-worker's world: streams, environment and working directory. The bin passes the process's;
 * tests pass their own.
 */
export type WorkerIo = {
  readonly out: WorkerOut;
  readonly err: WorkerOut;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * Aborted on SIGINT or SIGTERM, with the signal's name as the reason: the worker says what it stops,
   * stops its agent, releases the task and exits 130.
   */
  readonly interrupt?: AbortSignal | undefined;
};
