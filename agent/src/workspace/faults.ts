import { ConfigurationError } from "@whilly/core";

/**
 * git on this machine could not get a dependency's work or deliver the task's (a remote that is down or
 * refuses, a branch that is gone): the machine's fault, not the task's, so the attempt is given back
 * (`workspace_unavailable`) and the worker pauses. `hint` says what to check.
 */
export class WorkspaceUnavailable extends ConfigurationError {}

/**
 * The work of two of a task's dependencies conflicts when merged into its base: the task's attempt
 * fails `merge_conflict`, naming the dependency whose merge conflicted and the files.
 */
export class DependencyConflict extends Error {
  constructor(
    readonly dependency: { readonly taskId: string; readonly branch: string },
    readonly files: readonly string[],
  ) {
    super(
      `merging the work of dependency ${dependency.taskId} (${dependency.branch}) into the task's base conflicts: ${files.join(", ")}`,
    );
    this.name = "DependencyConflict";
  }
}
