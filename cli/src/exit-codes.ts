import {
  ConfigurationError,
  EXIT,
  InvalidInput,
  PlanInvalid,
  PlanNotFound,
  StoreLocked,
  StoreUnavailable,
  WhillyError,
} from "@whilly/core";

/** A command-line mistake: unknown command or flag, missing argument, bad option value. */
export class UsageError extends WhillyError {
  readonly code = "invalid_input";
}

/** The exit code for an error that reached the top of a command. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigurationError) return EXIT.usage;
  if (error instanceof PlanNotFound || error instanceof StoreUnavailable) return EXIT.usage;
  if (error instanceof PlanInvalid || error instanceof StoreLocked || error instanceof InvalidInput)
    return EXIT.failed;
  return EXIT.failed;
}
