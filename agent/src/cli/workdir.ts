import { accessSync, constants, statSync } from "node:fs";
import { ConfigurationError, describeSystemError } from "@whilly/core";

const OTHER_WORKDIR = "or pass another --workdir";

/**
 * Checks, before the first claim, that the agent can work in `dir`: it exists, is a directory, and this
 * process may list and enter it. A worker that found out only when starting the agent would fail the
 * task it had claimed, and then every next one, for a mistake on its own command line.
 * @param dir the absolute `--workdir` (or the current directory when it was not given).
 * @throws {ConfigurationError} naming `--workdir`, the path and why it cannot be used (exit 2).
 */
export function checkWorkdir(dir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
    if (isDirectory) accessSync(dir, constants.R_OK | constants.X_OK);
  } catch (error) {
    const system = describeSystemError(error);
    if (system === undefined) throw error;
    const missing = (error as { code?: unknown }).code === "ENOENT";
    throw new ConfigurationError(`--workdir: ${system.message}`, {
      cause: error,
      hint: missing
        ? `create it (a git checkout of the project the plan works on), ${OTHER_WORKDIR}`
        : `${system.hint}; ${OTHER_WORKDIR}`,
    });
  }
  if (!isDirectory) {
    throw new ConfigurationError(`--workdir ${dir} is not a directory`, {
      hint: `name the directory the agent works in (a git checkout of the project the plan works on), ${OTHER_WORKDIR}`,
    });
  }
}
