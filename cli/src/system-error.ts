import { describeSystemError as describe, type SystemErrorHints, type SystemErrorReport } from "@whilly/core";

/** whilly's own next steps, which name its flags and its embedded store. */
const CLI_HINTS: SystemErrorHints = {
  files: {
    EROFS:
      "run it somewhere whilly may write (the embedded store lives in .whilly/ at the repository root), or set WHILLY_DATABASE_URL to use a Postgres server",
  },
  listen: {
    EADDRINUSE:
      "another process listens there: stop it, or pick another --port (--port 0 takes any free one)",
    EADDRNOTAVAIL: "--host must be an address of this machine: 127.0.0.1, or 0.0.0.0 for every interface",
    EACCES: "ports below 1024 need privileges: pick --port 1024 or above",
    EPERM: "ports below 1024 need privileges: pick --port 1024 or above",
  },
};

/**
 * {@link describe | core's describeSystemError} with the hints of `whilly`: one line and a next step for
 * a refusal by the operating system, e.g. `cannot listen on 127.0.0.1:8000: the port is already in use
 * (EADDRINUSE)` with a hint naming `--port`, exit code 2; a file fault exits 1.
 * @param subject names what failed when the error does not (e.g. `to standard output`).
 * @returns `undefined` when `error` is not a system error.
 */
export function describeSystemError(error: unknown, subject?: string): SystemErrorReport | undefined {
  return describe(error, subject, CLI_HINTS);
}
