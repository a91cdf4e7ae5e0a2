import { PlanInvalid, type PlanIssue } from "../errors.js";
import { formatPath } from "../plan/issues.js";
import { findDuplicateKeys } from "../plan/json-duplicates.js";
import { findJsonSyntaxError } from "../plan/json-syntax.js";
import { convertTaskmaster, type TaskmasterImport, type TaskmasterOptions } from "./convert.js";

/**
 * Parses a Taskmaster `tasks.json`'s text and converts it ({@link convertTaskmaster}). A leading byte
 * order mark is ignored.
 * @throws {PlanInvalid} on invalid JSON (with line and column), on keys repeated within one object
 *   (JSON would keep only the last value), and on everything {@link convertTaskmaster} reports.
 * @throws {InvalidInput} when the tag is not in the file.
 */
export function parseTaskmasterFile(text: string, options: TaskmasterOptions): TaskmasterImport {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const found = findJsonSyntaxError(body);
    const message = found
      ? `invalid JSON at line ${found.line}, column ${found.column}: ${found.message}`
      : `invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
    throw new PlanInvalid(options.source, [{ path: "", message }]);
  }
  const repeats: PlanIssue[] = findDuplicateKeys(body).map(({ path, line, column }) => ({
    path: formatPath(path),
    message: `${formatPath(path)}: duplicate key (line ${line}, column ${column}); JSON keeps only the last value, so remove or rename one of them`,
  }));
  if (repeats.length > 0) throw new PlanInvalid(options.source, repeats);
  return convertTaskmaster(value, options);
}
