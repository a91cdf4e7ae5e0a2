import { basename, dirname, resolve, sep } from "node:path";
import {
  describeStatusMapping,
  InvalidInput,
  idProblem,
  instructionWarnings,
  parseTaskmasterFile,
  type TaskmasterImport,
  testStepWarnings,
} from "@whilly/core";
import { UsageError } from "./exit-codes.js";
import { readUtf8File } from "./plan-file.js";

/** What `--tag` and `--plan-id` asked for. */
export type TaskmasterFlags = { readonly tag?: string | undefined; readonly planId?: string | undefined };

/**
 * Reads a Taskmaster `tasks.json` and converts it into a whilly plan (docs/taskmaster.md). The project
 * name, when the file has none, is the directory holding `.taskmaster/` (else the file's directory).
 * `warn` gets one line per Taskmaster status whose meaning changed, then what `readPlanFile` warns
 * about, each prefixed with the path.
 * @throws {UsageError} for a `--plan-id` that is no valid id, or a `--tag` the file does not have
 *   (naming the tags it has). @throws {InvalidInput} when the file cannot be read.
 *   @throws {PlanInvalid} listing every problem by its path in the file.
 */
export async function readTaskmasterFile(
  path: string,
  cwd: string,
  flags: TaskmasterFlags,
  warn: (message: string) => void,
): Promise<TaskmasterImport> {
  const problem = flags.planId === undefined ? undefined : idProblem(flags.planId);
  if (problem !== undefined) {
    throw new UsageError(`--plan-id ${problem}`, { hint: "e.g. --plan-id notes-api" });
  }
  const text = await readUtf8File(path, cwd, "Taskmaster file");
  let converted: TaskmasterImport;
  try {
    converted = parseTaskmasterFile(text, {
      source: path,
      tag: flags.tag,
      planId: flags.planId,
      projectName: projectName(resolve(cwd, path)),
    });
  } catch (error) {
    // The file is fine; the flag names a tag it does not have.
    if (error instanceof InvalidInput && error.field === "tag") {
      throw new UsageError(error.message, { hint: error.hint, cause: error });
    }
    throw error;
  }
  const { plan } = converted;
  const warnings = [
    ...converted.statusMappings.map(describeStatusMapping),
    ...instructionWarnings(plan.keptInstructions),
    ...testStepWarnings(plan.tasks),
  ];
  for (const message of warnings) warn(`${path}: ${message}`);
  return converted;
}

/** The directory holding `.taskmaster/` when the file is inside one, else the file's directory's name. */
function projectName(file: string): string {
  const parts = dirname(file).split(sep);
  const at = parts.lastIndexOf(".taskmaster");
  return at > 0 ? (parts[at - 1] ?? "") : basename(dirname(file));
}
