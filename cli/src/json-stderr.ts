import { describeUnexpected, WhillyError } from "@whilly/core";
import type { Logger } from "@whilly/worker-api";
import { exitCodeFor } from "./exit-codes.js";
import type { Out } from "./io.js";
import { describeSystemError } from "./system-error.js";

/**
 * For commands whose stderr is a stream of JSON log lines (`whilly server`): what the process itself
 * says there (the interrupt notice, an error that escaped every command, a notice from shared code)
 * must be a log line too, or one plain line breaks every `jq` reading the stream. The command turns
 * this on with {@link logStderrAsJson}; `bin/whilly.js` asks {@link announceInterrupt} and
 * {@link logUncaught}, which fall back to plain text while it is off.
 */

/** The logger of the command that owns stderr, and the prefix of the events the process logs there. */
let owner: { readonly log: Logger; readonly prefix: string } | undefined;

/**
 * Makes the process log on stderr through `log` from now on, its own events named `<prefix>.signal`
 * and `<prefix>.failed`.
 * @returns a function that turns it off again.
 */
export function logStderrAsJson(log: Logger, prefix: string): () => void {
  const mine = { log, prefix };
  owner = mine;
  return () => {
    if (owner === mine) owner = undefined;
  };
}

/** Says that the first SIGINT or SIGTERM arrived and the command is stopping; a second one forces. */
export function announceInterrupt(err: Out, signal: string): void {
  if (owner === undefined) {
    err.write(`\nwhilly: ${signal} received; stopping (again to force)\n`);
    return;
  }
  owner.log("info", `${owner.prefix}.signal`, { signal, message: "stopping; send it again to force" });
}

/**
 * Logs an error that escaped every command as a `<prefix>.failed` line, when a command owns stderr.
 * @param subject names what failed when the error does not, e.g. `to standard output`.
 * @returns the exit code to end with, or `undefined` when no command owns stderr (report it as text).
 */
export function logUncaught(error: unknown, subject?: string): number | undefined {
  if (owner === undefined) return undefined;
  return logFailure(owner.log, `${owner.prefix}.failed`, error, subject);
}

/**
 * Logs an error that ended a command as one `error` line: `error_code` (a {@link WhillyError}'s code,
 * `system_error` for a refusal by the operating system, `internal_error` for a bug), `message`, `hint`
 * when there is one, and a bug's `stack`. The same facts `reportError` prints as text.
 * @returns the exit code to end with, as `reportError` chooses it.
 */
export function logFailure(log: Logger, event: string, error: unknown, subject?: string): number {
  if (error instanceof WhillyError) {
    log("error", event, { error_code: error.code, message: error.message, ...hintField(error.hint) });
    return exitCodeFor(error);
  }
  const system = describeSystemError(error, subject);
  if (system) {
    log("error", event, { error_code: "system_error", message: system.message, hint: system.hint });
    return system.exitCode;
  }
  log("error", event, {
    error_code: "internal_error",
    message: "unexpected failure (a bug in whilly)",
    stack: describeUnexpected(error),
  });
  return 1;
}

/**
 * A stream for code that writes plain lines (e.g. the embedded store's "creating" notice), turning each
 * line into an `info` log line `event` with the text as its `message`, minus a leading `whilly: `.
 */
export function noticesAsLog(log: Logger, event: string): Out {
  let pending = "";
  return {
    write(text: string) {
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const message = line.replace(/^whilly: /, "").trim();
        if (message !== "") log("info", event, { message });
      }
      return true;
    },
  };
}

function hintField(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}
