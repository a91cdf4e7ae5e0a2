import { redactingWriter, secretValuesOf, terminalText } from "@whilly/core";

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

/**
 * A stream that shows every control character written to it as an escape ({@link terminalText}, line
 * feeds and tabs kept). The worker's lines carry text from servers, agents and its own flags (a
 * hostname, an error detail), so all of it goes through here and none reaches a terminal raw. Text with
 * nothing to escape, a token included, passes unchanged; JSON keeps its meaning.
 */
export function terminalSafe(stream: WorkerOut): WorkerOut {
  return { write: (text: string) => stream.write(terminalText(text, "lines")) };
}

/**
 * `io` with {@link terminalSafe} standard output and error; standard error, where the worker reports
 * agents' messages and errors, also hides the environment's secrets (`redactingWriter`). Standard
 * output stays exact: `whilly-worker register` prints a token there.
 */
export function terminalSafeIo(io: WorkerIo): WorkerIo {
  const err = redactingWriter(terminalSafe(io.err), secretValuesOf(io.env));
  return { ...io, out: terminalSafe(io.out), err };
}
