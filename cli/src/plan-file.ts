import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  InvalidInput,
  instructionWarnings,
  type PlanSpec,
  parsePlanFile,
  testStepWarnings,
} from "@whilly/core";
import { describeSystemError } from "./system-error.js";

/**
 * Reads and validates a plan file. A relative `path` is taken from `cwd` (the command's working
 * directory, which in-process callers set apart from the process's); messages show `path` as given.
 * `warn` gets one sentence per thing the file holds that whilly keeps but does not use (an
 * `agent_instructions` value that is not a list of strings) and one naming the tasks whose
 * `test_steps` whilly's checks will not run (prose, calls to whilly), each prefixed with the path.
 * @throws {InvalidInput} when the file cannot be read, saying why in the system's terms (no such file,
 *   a directory, permission denied). @throws {PlanInvalid} listing every problem.
 */
export async function readPlanFile(
  path: string,
  cwd: string,
  warn: (message: string) => void,
): Promise<PlanSpec> {
  const text = await readUtf8File(path, cwd, "plan file");
  const plan = parsePlanFile(text, path);
  const warnings = [...instructionWarnings(plan.keptInstructions), ...testStepWarnings(plan.tasks)];
  for (const message of warnings) warn(`${path}: ${message}`);
  return plan;
}

/**
 * Reads a text file; `what` names it in messages (`plan file`, `Taskmaster file`). A relative `path`
 * is taken from `cwd`.
 * @throws {InvalidInput} when it cannot be read, saying why in the system's terms, or is not UTF-8.
 */
export async function readUtf8File(path: string, cwd: string, what: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(cwd, path));
  } catch (cause) {
    const system = describeSystemError(cause, `${what} '${path}'`);
    if (system === undefined) throw cause;
    throw new InvalidInput("file", system.message.replace(/^cannot open /, "cannot read "), {
      hint: system.hint,
      cause,
    });
  }
  return decodeUtf8(bytes, path, what);
}

/**
 * The file's text. Decoding other encodings as UTF-8 would turn their bytes into U+FFFD silently and
 * store the damage, so a file that is not UTF-8 is refused, pointing at the first bad byte.
 * @throws {InvalidInput} when `bytes` is not valid UTF-8.
 */
function decodeUtf8(bytes: Buffer, path: string, what: string): string {
  const text = bytes.toString("utf8");
  if (isUtf8(bytes)) return text;
  const at = text.indexOf("\uFFFD");
  const before = text.slice(0, Math.max(at, 0)).split("\n");
  const where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  throw new InvalidInput(
    "file",
    `${what} '${path}' is not UTF-8 text (first bad byte at or before ${where})`,
    {
      hint: `save it as UTF-8, e.g. iconv -f latin1 -t utf-8 '${path}' > tasks.utf8.json`,
    },
  );
}
