import type { PlanIssue } from "../errors.js";
import { show } from "./text.js";

/** A step into a JSON value: an object key or an array index. */
export type Segment = string | number;

/** Which task an issue is about: its position in `tasks` and its id when it has a usable one. */
export type TaskScope = { readonly index: number; readonly id: string | undefined };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `tasks[1].priority`, `agent_instructions.before[0]`, `extra["a b"]`: a JSON path for `PlanIssue.path`. */
export function formatPath(segments: readonly Segment[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) path += path === "" ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** A field as messages name it: `'priority'`, `'dependencies'[2]`, `'agent_instructions'.before[1]`. */
export function fieldName(segments: readonly Segment[]): string {
  const [first, ...rest] = segments;
  if (first === undefined) return "the value";
  const head = typeof first === "string" ? show(first) : `[${first}]`;
  const tail = formatPath(rest);
  return tail === "" || tail.startsWith("[") ? `${head}${tail}` : `${head}.${tail}`;
}

/** `task 'T-2' (tasks[1])`, or `task at tasks[1]` when the task has no usable id. */
export function taskLabel(scope: TaskScope): string {
  return scope.id === undefined
    ? `task at tasks[${scope.index}]`
    : `task ${show(scope.id)} (tasks[${scope.index}])`;
}

/** Collects every problem of one plan, each with its JSON path and, for a task, the task's label. */
export class IssueList {
  readonly items: PlanIssue[] = [];

  /** A problem with the plan as a whole or one of its top-level fields. */
  plan(path: readonly Segment[], message: string): void {
    this.items.push({ path: formatPath(path), message });
  }

  /** A problem inside task `scope`; `path` is relative to the task and `message` gets the task's label. */
  task(scope: TaskScope, path: readonly Segment[], message: string): void {
    this.raw(scope, path, `${taskLabel(scope)}: ${message}`);
  }

  /** Like {@link IssueList.task}, with `message` used as it is. */
  raw(scope: TaskScope, path: readonly Segment[], message: string): void {
    const issue = { path: formatPath(["tasks", scope.index, ...path]), message };
    this.items.push(scope.id === undefined ? issue : { ...issue, taskId: scope.id });
  }
}
