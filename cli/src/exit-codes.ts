import {
  ConfigurationError,
  InvalidInput,
  PlanInvalid,
  PlanNotFound,
  StoreLocked,
  StoreUnavailable,
  WhillyError,
} from "@whilly/core";

/**
 * whilly's exit codes (documented in docs/cli.md). The seed's where it defines them (spec section 1.15:
 * 2 for a missing plan or configuration), otherwise 0 ok, 1 the operation failed, 2 usage or
 * configuration, 130 interrupted.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

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
