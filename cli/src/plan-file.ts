import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidInput, type PlanSpec, parsePlanFile } from "@whilly/core";

/**
 * Reads and validates a plan file. A relative `path` is taken from `cwd` (the command's working
 * directory, which in-process callers set apart from the process's); messages show `path` as given.
 * @throws {InvalidInput} when the file cannot be read. @throws {PlanInvalid} listing every problem.
 */
export async function readPlanFile(path: string, cwd: string): Promise<PlanSpec> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), "utf8");
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(cause);
    throw new InvalidInput("file", `cannot read plan file '${path}': ${why}`, {
      hint: "pass the path of a tasks.json plan file (see docs/plan-format.md)",
    });
  }
  return parsePlanFile(text, path);
}
