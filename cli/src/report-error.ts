import { describeUnexpected, PlanInvalid, WhillyError } from "@whilly/core";
import { exitCodeFor } from "./exit-codes.js";
import { type Io, printError } from "./io.js";
import { describeSystemError } from "./system-error.js";

/**
 * Prints an error that ended a command and returns its exit code. Our own errors print their message
 * and hint; a refusal by the operating system (a full disk, a port in use, a path that is not a
 * directory) one line and a hint ({@link describeSystemError}); anything else is a bug and prints its
 * stack so it can be reported (a failed query's cause, never its parameters: {@link describeUnexpected}).
 */
export function reportError(io: Pick<Io, "err" | "env">, error: unknown): number {
  if (error instanceof PlanInvalid) {
    const count = error.issues.length;
    printError(io, `${error.source}: invalid plan (${count} problem${count === 1 ? "" : "s"}):`);
    for (const issue of error.issues) io.err.write(`  - ${issue.message}\n`);
    const hint = error.hint ?? "fix the fields named above; docs/plan-format.md describes every field";
    io.err.write(`hint: ${hint}\n`);
    return exitCodeFor(error);
  }
  if (error instanceof WhillyError) {
    printError(io, error.message, error.hint);
    return exitCodeFor(error);
  }
  const system = describeSystemError(error);
  if (system) {
    printError(io, system.message, system.hint);
    return system.exitCode;
  }
  printError(io, `unexpected failure (a bug in whilly): ${describeUnexpected(error)}`);
  return 1;
}
