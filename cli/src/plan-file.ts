import { readFile } from "node:fs/promises";
import { InvalidInput, type PlanSpec, parsePlanFile } from "@whilly/core";

/**
 * Reads and validates a plan file.
 * @throws {InvalidInput} when the file cannot be read. @throws {PlanInvalid} listing every problem.
 */
export async function readPlanFile(path: string): Promise<PlanSpec> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(cause);
    throw new InvalidInput("file", `cannot read plan file '${path}': ${why}`, {
      hint: "pass the path of a tasks.json plan file (see docs/plan-format.md)",
    });
  }
  return parsePlanFile(text, path);
}
