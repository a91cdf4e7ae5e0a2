import { ConfigurationError, emscriptenErrorCode, WhillyError } from "@whilly/core";
import { translateError } from "../errors.js";

/** PGlite's words when Postgres exits during start-up: files it cannot read, write or recognise. */
const START_FAILED = /PGlite failed to initialize/;

/**
 * Turns a failure to open the embedded store in `dataDir` into what its user can act on:
 * - PGlite's file system fault (an Emscripten `ErrnoError`, which names no file) becomes a Node-shaped
 *   system error (`code`, `path: dataDir`), which every entry point words as one line and a hint,
 *   e.g. `cannot use /repo/.whilly/pgdata: no space left on the device (ENOSPC)`;
 * - Postgres refusing to start on the directory's files becomes a {@link ConfigurationError} naming it;
 * - anything else goes through the store's {@link translateError}.
 */
export function openFailure(error: unknown, dataDir: string): unknown {
  if (error instanceof WhillyError) return error;
  const code = emscriptenErrorCode(error);
  if (code !== undefined) {
    return Object.assign(new Error(`${code}: the embedded store's files, ${dataDir}`, { cause: error }), {
      code,
      path: dataDir,
    });
  }
  if (error instanceof Error && START_FAILED.test(error.message)) {
    return new ConfigurationError(
      `cannot open the embedded store in ${dataDir}: Postgres could not start on its files`,
      {
        cause: error,
        hint: `check that this user may read and write ${dataDir} and that its disk has free space (df -h); if it is not a whilly store or is damaged, move it aside and run again, or set WHILLY_DATABASE_URL to use a Postgres server`,
      },
    );
  }
  return translateError(error);
}
