import type { PlanIssue } from "../errors.js";
import { formatPath, type Segment } from "../plan/issues.js";

/**
 * Collects the problems of one Taskmaster file. Each message starts with the field's path in the
 * file (`master.tasks[3].dependencies[0]`), then the task it belongs to, then what is wrong and the
 * fix, since the CLI prints messages only.
 */
export class Problems {
  readonly items: PlanIssue[] = [];

  add(path: readonly Segment[], who: string | undefined, message: string): void {
    const where = formatPath(path) || "the file";
    this.items.push({ path: formatPath(path), message: `${where}${who ? ` (${who})` : ""}: ${message}` });
  }
}
