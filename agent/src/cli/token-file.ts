import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ConfigurationError } from "@whilly/core";

/** A worker token read from a file, and a warning when others may read that file. */
export type TokenFromFile = { readonly token: string; readonly warning: string | undefined };

/**
 * Reads the worker's bearer from `path` (`--token-file`), so it never appears on a command line (`ps`
 * shows those to every user). The file holds the token alone; surrounding whitespace is dropped. A file
 * its group or other users may read or write is used, with a warning that says how to fix it.
 * @param cwd resolves a relative `path`.
 * @throws {ConfigurationError} when the file cannot be read or holds no token.
 */
export function readTokenFile(path: string, cwd: string): TokenFromFile {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  let text: string;
  let mode: number;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? "error";
    throw new ConfigurationError(`--token-file ${file} cannot be read (${code})`, {
      cause: error,
      hint: "write the token from `whilly-worker register` there: (umask 077; whilly-worker register ... > FILE)",
    });
  }
  const token = text.trim();
  if (token === "" || /\s/.test(token)) {
    throw new ConfigurationError(
      `--token-file ${file} ${token === "" ? "is empty" : "holds more than one word"}`,
      { hint: "it must hold the token from `whilly-worker register` and nothing else" },
    );
  }
  const open = mode & 0o077;
  const warning =
    open === 0
      ? undefined
      : `the token file ${file} is open to other users (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); make it yours alone: chmod 600 ${file}`;
  return { token, warning };
}
