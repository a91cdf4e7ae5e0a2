import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidInput, type PlanSpec, parsePlanFile } from "@whilly/core";
import { describeSystemError } from "./system-error.js";

/**
 * Reads and validates a plan file. A relative `path` is taken from `cwd` (the command's working
 * directory, which in-process callers set apart from the process's); messages show `path` as given.
 * @throws {InvalidInput} when the file cannot be read, saying why in the system's terms (no such file,
 *   a directory, permission denied). @throws {PlanInvalid} listing every problem.
 */
export async function readPlanFile(path: string, cwd: string): Promise<PlanSpec> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), "utf8");
  } catch (cause) {
    const system = describeSystemError(cause, `plan file '${path}'`);
    if (system === undefined) throw cause;
    throw new InvalidInput("file", system.message.replace(/^cannot open /, "cannot read "), {
      hint: system.hint,
      cause,
    });
  }
  return parsePlanFile(text, path);
}
